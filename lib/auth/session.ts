import { forbidden, redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { can, type Permission } from "@/lib/domain/roles";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { authOptions } from "./options";

export type UserPrincipal = Extract<Principal, { kind: "user" }>;

/**
 * The signed-in user as the database knows them now: a deactivated account or a changed role
 * takes effect on the next request, not when the session cookie happens to expire.
 */
export const currentUser = cache(async (): Promise<UserPrincipal | null> => {
  const session = await getServerSession(authOptions());
  if (!session?.user?.id) return null;
  // Sessions end a fixed time after sign-in, however active they were.
  const ageSeconds = Math.floor(Date.now() / 1000) - session.authTime;
  if (ageSeconds > env().SESSION_MAX_AGE_SECONDS) return null;
  const user = await db().user.findUnique({ where: { id: session.user.id } });
  if (!user?.active) return null;
  return { kind: "user", userId: user.id, email: user.email, name: user.name, roles: user.roles };
});

/** For pages: no session sends the browser to sign-in; a missing permission renders the 403 page. */
export async function requirePageUser(permission?: Permission): Promise<UserPrincipal> {
  const user = await currentUser();
  if (!user) redirect("/sign-in");
  if (permission && !can(user.roles, permission)) forbidden();
  return user;
}

/** For server actions and route handlers: typed errors instead of navigation. */
export async function requireUser(permission?: Permission): Promise<UserPrincipal> {
  const user = await currentUser();
  if (!user) throw new AppError("unauthenticated", "Sign in to continue.");
  if (permission && !can(user.roles, permission)) {
    throw new AppError("forbidden", "Your roles do not allow this.");
  }
  return user;
}
