import type { Role } from "@/lib/domain/roles";

declare module "next-auth" {
  interface Session {
    /** Absent when the session check refused the cookie (ended, outdated or expired). */
    user?: { id: string; email: string; name: string; roles: Role[]; producers: readonly string[] | null };
    authTime?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    /** The user's session version at sign-in (decision 016). */
    sv?: number;
    /** This session's own id, recorded as ended on sign-out. */
    sid?: string;
    authTime?: number;
  }
}
