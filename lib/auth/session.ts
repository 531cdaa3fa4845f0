import { forbidden, redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { cache } from "react";
import type { Principal } from "@/lib/domain/principal";
import { can, type Permission } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import { authOptions } from "./options";

export type UserPrincipal = Extract<Principal, { kind: "user" }>;

/**
 * The signed-in user as the database knows them now. Reading the session runs the session check
 * (`resolveSession`, from the options' session callback) against the database on every request:
 * a deactivated account, a bumped session version or a signed-out session id is nobody at once,
 * not when the cookie happens to expire. Pages, server actions and session-accepting API routes
 * all come through here.
 */
export const currentUser = cache(async (): Promise<UserPrincipal | null> => {
  const session = await getServerSession(authOptions());
  const user = session?.user;
  if (!user?.id) return null;
  return {
    kind: "user",
    userId: user.id,
    email: user.email,
    name: user.name,
    roles: user.roles,
    producers: user.producers ?? null,
  };
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
