import type { Role } from "@/lib/domain/roles";

declare module "next-auth" {
  interface Session {
    user: { id: string; email: string; name: string; roles: Role[] };
    authTime: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    roles?: Role[];
    authTime?: number;
  }
}
