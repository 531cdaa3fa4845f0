import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import { type PauseKind, pauseNeedsEveryProducer } from "@/lib/domain/scope-pauses";
import { AppError } from "@/lib/errors";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import type { PauseScopeInput } from "@/lib/validation/scope-pauses";
import { requirePermission, requireUnscoped, type UserActor } from "../access/actor";
import { knownProducers } from "../admin/known-producers";
import { openPause } from "./writer/pauses";

/**
 * Who may pause or resume this scope: `pause:set`, and a provider or model pause stops every
 * producer's work, so it needs a person who sees every producer; a producer pause needs that
 * producer in the person's scope (decision 064).
 */
export function requirePauser(actor: Principal, kind: PauseKind, value: string): UserActor {
  const user = requirePermission(actor, "pause:set");
  if (pauseNeedsEveryProducer(kind)) return requireUnscoped(user);
  if (!inProducerScope(scopeOf(user), value)) throw new AppError("forbidden", "That producer is not one of yours.");
  return user;
}

/** A name that pauses nothing (a typo) is refused rather than recorded. */
async function requireKnown(db: Db, kind: PauseKind, value: string): Promise<void> {
  if (kind === "provider" && !(PROVIDER_NAMES as readonly string[]).includes(value))
    throw new AppError("invalid_request", `No provider is called ${value}.`, {
      issues: [{ path: "value", message: "not a provider this console knows" }],
    });
  if (kind === "producer" && !(await knownProducers(db)).includes(value))
    throw new AppError("unknown_producer", `No producer is called ${value}.`, {
      issues: [{ path: "value", message: "not a producer this console knows" }],
    });
}

export type PauseResult = { kind: PauseKind; value: string; created: boolean };

/**
 * Pauses recoveries and sends of one provider, producer or model until someone resumes them, with
 * one audit event saying who and why. Pausing what is already paused changes nothing and records
 * nothing (`created: false`): the first pause and its reason stand. A breaker's pause of the same
 * scope is another cause and does not count (decision 070): each is resumed on its own.
 */
export async function pauseScope(db: Db, actor: Principal, input: PauseScopeInput): Promise<PauseResult> {
  const user = requirePauser(actor, input.kind, input.value);
  await requireKnown(db, input.kind, input.value);
  return inTransaction(db, async (tx) => {
    const { created } = await openPause(
      tx,
      { kind: input.kind, value: input.value, cause: "person" },
      { reason: input.reason, pausedById: user.userId, pausedByLabel: user.name || user.email },
    );
    if (!created) return { kind: input.kind, value: input.value, created: false };
    await recordAudit(tx, {
      actor: user,
      kind: "scope_paused",
      after: { pauseKind: input.kind, value: input.value, reason: input.reason },
    });
    return { kind: input.kind, value: input.value, created: true };
  });
}
