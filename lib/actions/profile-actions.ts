"use server";

import { cookies } from "next/headers";
import { z } from "zod";
import { db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { endUserSessions } from "@/lib/services/access/end-sessions";
import { revokeAccessToken } from "@/lib/services/access/revoke-access-token";
import { createPersonalTokenSchema, tokenIdSchema } from "@/lib/validation/admin";
import { TIME_DISPLAY_COOKIE, timeDisplaySchema } from "@/lib/validation/time-display";
import { safeAction } from "./safe-action";

const DAY_MS = 24 * 60 * 60 * 1000;

// A personal token acts as the signed-in user with that user's roles at the time of each request.
const createRun = safeAction(
  createPersonalTokenSchema,
  (input, actor) =>
    inTransaction(db(), (tx) =>
      createAccessToken(tx, actor, {
        kind: "personal",
        name: input.name,
        ...(input.expiresInDays ? { expiresAt: new Date(Date.now() + input.expiresInDays * DAY_MS) } : {}),
      }),
    ),
  { revalidate: () => ["/profile"] },
);
export async function createPersonalTokenAction(raw: unknown) {
  return createRun(raw);
}

// The service refuses another user's token, whoever calls this.
const revokeRun = safeAction(
  tokenIdSchema,
  (input, actor) => inTransaction(db(), (tx) => revokeAccessToken(tx, actor, input.tokenId)),
  { revalidate: () => ["/profile"] },
);
export async function revokePersonalTokenAction(raw: unknown) {
  return revokeRun(raw);
}

// "Sign out everywhere": every session of the signed-in user ends, this browser's included.
const signOutEverywhereRun = safeAction(z.strictObject({}), (_input, actor) =>
  endUserSessions(db(), actor, { userId: actor.userId }),
);
export async function signOutEverywhereAction(raw: unknown) {
  return signOutEverywhereRun(raw);
}

// A display preference of this browser, like its colour scheme: a cookie, not a record (decision 062).
const timesRun = safeAction(timeDisplaySchema, async (input) => {
  (await cookies()).set(TIME_DISPLAY_COOKIE, input.times, {
    path: "/",
    sameSite: "lax",
    httpOnly: true,
    maxAge: 400 * 24 * 60 * 60,
  });
  return { times: input.times };
});
export async function setTimeDisplayAction(raw: unknown) {
  return timesRun(raw);
}
