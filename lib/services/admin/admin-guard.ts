import type { z } from "zod";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { zodIssues } from "@/lib/validation/zod-issues";
import type { UserActor } from "../access/actor";

/** Services validate their own input too: a caller that skips the form's schema is still refused. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("invalid_request", "Check the highlighted fields.", { issues: zodIssues(parsed.error) });
  }
  return parsed.data;
}

/**
 * Locks every active admin's row, in id order so two admins acting at once queue instead of
 * deadlocking, and confirms the actor is still one of them. Two admins demoting each other at the
 * same moment therefore run one after the other, and the second sees the first's change.
 */
export async function lockActiveAdmins(tx: Db, actor: UserActor): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM users WHERE active AND 'admin'::"Role" = ANY(roles) ORDER BY id FOR UPDATE`;
  const ids = new Set(rows.map((row) => row.id));
  if (!ids.has(actor.userId)) throw new AppError("forbidden", "Your account is no longer an active admin.");
  return ids;
}
