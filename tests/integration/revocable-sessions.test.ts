import { randomUUID } from "node:crypto";
import { decode, encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import * as overviewRoute from "@/app/api/v1/overview/route";
import { signOutUserAction } from "@/lib/actions/admin-actions";
import { signOutEverywhereAction } from "@/lib/actions/profile-actions";
import { safeAction } from "@/lib/actions/safe-action";
import { authOptions } from "@/lib/auth/options";
import { currentUser } from "@/lib/auth/session";
import type { UserActor } from "@/lib/services/access/actor";
import { authenticateToken } from "@/lib/services/access/authenticate-token";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { endUserSessions } from "@/lib/services/access/end-sessions";
import { resetUserPassword } from "@/lib/services/admin/reset-user-password";
import { setUserActive } from "@/lib/services/admin/set-user-active";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { resetPasswordSchema, setUserRolesSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import { makeUser } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

// The browser's cookie for the request being simulated. Outside a real request there is no cookie
// store, so getServerSession is given this cookie the way the pages router hands it one; from there
// on it is next-auth's own code: decoding the cookie, the jwt and session callbacks, and the check.
const SECRET = vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "revocable-sessions-test-secret-0123456789";
  return process.env.AUTH_SECRET;
});
const browser = vi.hoisted(() => ({ cookie: "" }));
vi.mock("next-auth", async (importOriginal) => {
  const real = await importOriginal<typeof import("next-auth")>();
  const res = { getHeader: () => undefined, setHeader: () => undefined, setCookie: () => undefined };
  return {
    ...real,
    getServerSession: (options: Parameters<typeof real.getServerSession>[0]) =>
      real.getServerSession(
        { headers: {}, cookies: browser.cookie ? { "next-auth.session-token": browser.cookie } : {} } as never,
        res as never,
        options as never,
      ),
  };
});
// Server actions revalidate pages; there is no Next.js cache to revalidate here.
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { db } = openTestDb();

/** Signs in as the console does: the jwt callback builds the claims, next-auth encrypts them. */
async function signIn(user: UserActor): Promise<string> {
  const jwt = authOptions().callbacks?.jwt;
  if (!jwt) throw new Error("no jwt callback");
  const token = await jwt({
    token: {},
    user: { id: user.userId, email: user.email, name: user.name },
    account: { provider: "credentials", type: "credentials", providerAccountId: user.userId },
  } as never);
  return encode({ secret: SECRET, token });
}

/** A protected read through each door a session opens: a page's check, a server action, an API route. */
const whoAmI = safeAction(z.strictObject({}), async (_input, actor) => actor.userId);
async function doors(cookie: string) {
  browser.cookie = cookie;
  try {
    const page = (await currentUser())?.userId ?? null;
    const action = await whoAmI({});
    const api = await callRoute(overviewRoute.GET);
    return { page, action: action.ok ? action.data : action.error.code, api: api.status };
  } finally {
    browser.cookie = "";
  }
}
const open = (user: UserActor) => ({ page: user.userId, action: user.userId, api: 200 });
const shut = { page: null, action: "unauthenticated", api: 401 };

let admin: UserActor;
beforeAll(async () => {
  admin = await makeUser(db, ["admin"]);
});

describe("a session cookie", () => {
  it("is honoured by pages, server actions and API routes while nothing has ended it", async () => {
    const user = await makeUser(db, ["operator"]);
    expect(await doors(await signIn(user))).toEqual(open(user));
  });

  it("minted without a session version and id (or forged) is nobody", async () => {
    const user = await makeUser(db, ["operator"]);
    const old = await encode({
      secret: SECRET,
      token: { sub: user.userId, uid: user.userId, roles: user.roles, authTime: Math.floor(Date.now() / 1000) },
    });
    expect(await doors(old)).toEqual(shut);
    expect(await doors("forged")).toEqual(shut);
  });

  it("stops working after an admin resets the password, and so do personal tokens unless keeping them is asked for", async () => {
    const user = await makeUser(db, ["reviewer"]);
    const cookie = await signIn(user);
    const kept = await createAccessToken(db, user, { kind: "personal", name: "kept" });
    await resetUserPassword(
      db,
      admin,
      parseInput(resetPasswordSchema, { userId: user.userId, keepPersonalTokens: true }),
    );
    expect(await doors(cookie)).toEqual(shut);
    expect(await authenticateToken(db, kept.secret)).toMatchObject({ kind: "user", userId: user.userId });

    // By default (the box unticked) a reset revokes every personal token along with the sessions.
    const fresh = await signIn(user);
    expect(await doors(fresh)).toEqual(open(user));
    const second = await createAccessToken(db, user, { kind: "personal", name: "second" });
    const reset = await resetUserPassword(db, admin, parseInput(resetPasswordSchema, { userId: user.userId }));
    expect(reset.personalTokensRevoked).toBe(2);
    expect(await doors(fresh)).toEqual(shut);
    expect(await authenticateToken(db, kept.secret)).toBeNull();
    expect(await authenticateToken(db, second.secret)).toBeNull();
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_password_reset" },
      orderBy: { id: "desc" },
    });
    expect(audit.after).toMatchObject({ id: user.userId, sessionsEnded: true, personalTokensRevoked: 2 });
  });

  it("stops working after a role change", async () => {
    const user = await makeUser(db, ["operator"]);
    const cookie = await signIn(user);
    await setUserRoles(
      db,
      admin,
      parseInput(setUserRolesSchema, { userId: user.userId, roles: ["operator", "reviewer"] }),
    );
    expect(await doors(cookie)).toEqual(shut);
    expect(await doors(await signIn(user))).toEqual(open(user));
  });

  it("stops working after deactivation, and reactivation does not bring it back", async () => {
    const user = await makeUser(db, ["finance"]);
    const cookie = await signIn(user);
    await setUserActive(db, admin, { userId: user.userId, active: false });
    expect(await doors(cookie)).toEqual(shut);
    await setUserActive(db, admin, { userId: user.userId, active: true });
    expect(await doors(cookie)).toEqual(shut);
    expect(await doors(await signIn(user))).toEqual(open(user));
  });

  it("ends everywhere when its user signs out everywhere from the profile, this browser included", async () => {
    const user = await makeUser(db, ["operator"]);
    const laptop = await signIn(user);
    const phone = await signIn(user);
    browser.cookie = laptop;
    const result = await signOutEverywhereAction({});
    browser.cookie = "";
    expect(result.ok).toBe(true);
    expect(await doors(laptop)).toEqual(shut);
    expect(await doors(phone)).toEqual(shut);
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_sessions_ended", actorId: user.userId },
    });
    expect(audit.after).toMatchObject({ id: user.userId, by: "self" });
  });

  it("ends when an admin signs the user out; only an admin may sign someone else out", async () => {
    const user = await makeUser(db, ["reviewer"]);
    const other = await makeUser(db, ["reviewer"]);
    const cookie = await signIn(user);
    await expect(endUserSessions(db, other, { userId: user.userId })).rejects.toMatchObject({ code: "forbidden" });
    browser.cookie = await signIn(other);
    expect(await signOutUserAction({ userId: user.userId })).toMatchObject({ ok: false, error: { code: "forbidden" } });
    expect(await doors(cookie)).toEqual(open(user));

    browser.cookie = await signIn(admin);
    expect(await signOutUserAction({ userId: user.userId })).toMatchObject({ ok: true });
    browser.cookie = "";
    expect(await doors(cookie)).toEqual(shut);
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_sessions_ended", actorId: admin.userId },
    });
    expect(audit.after).toMatchObject({ id: user.userId, by: "admin" });
  });

  it("signed out stops working even as a copy, while the user's other sessions go on", async () => {
    const user = await makeUser(db, ["admin"]);
    const copied = await signIn(user);
    const other = await signIn(user);
    const signOut = authOptions().events?.signOut;
    if (!signOut) throw new Error("no signOut event");
    await signOut({ token: (await decode({ secret: SECRET, token: copied })) ?? {} } as never);
    expect(await doors(copied)).toEqual(shut);
    expect(await doors(other)).toEqual(open(user));
  });

  it("sign-out prunes ended sessions whose cookies have expired anyway", async () => {
    const user = await makeUser(db, ["operator"]);
    const stale = randomUUID();
    await db.endedSession.create({
      data: { sessionId: stale, userId: user.userId, expiresAt: new Date(Date.now() - 1000) },
    });
    const cookie = await signIn(user);
    const signOut = authOptions().events?.signOut;
    await signOut?.({ token: (await decode({ secret: SECRET, token: cookie })) ?? {} } as never);
    expect(await db.endedSession.findUnique({ where: { sessionId: stale } })).toBeNull();
    expect(await db.endedSession.count({ where: { userId: user.userId } })).toBe(1);
  });
});
