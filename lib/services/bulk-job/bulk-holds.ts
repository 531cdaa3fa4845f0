import { randomBytes } from "node:crypto";
import { hashToken } from "@/lib/auth/token-secret";
import type { Prisma as Client, Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isDomainError } from "@/lib/domain/errors";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { type HoldBulkVerb, holdBulkRefusal } from "@/lib/domain/hold-bulk";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { HoldBulkDryRunInput, HoldBulkStartInput } from "@/lib/validation/hold-bulk";
import { producersOf } from "@/lib/validation/producer-filter";
import { requirePermission, type UserActor, visibleProducers } from "../access/actor";
import { BULK_PREVIEW_TTL_SECONDS, type BulkSkipped, type Refusal, takePreview } from "../case/bulk-cases";
import { resolveHold } from "../hold/resolve-hold";
import { readSendFacts } from "../hold/send-outcome-of-hold";
import { createBulkJob } from "./create-bulk-job";

/** What a job carries for each hold: the verb, and the note and evidence every hold gets. */
export type HoldBulkAction = { verb: HoldBulkVerb; note: string; evidence: string };

/** Most holds one dry run previews. */
export const HOLD_BULK_LIMIT = 500;

/**
 * Finance's dry run (decision 065): the open holds of resolved cases (rule 13) the reader may see,
 * oldest first, each asked whether the verb fits what is known of its send; the answer lists the
 * holds it would settle or release with their money, and those it skips with the reason (an
 * unknown outcome, rule 18, above all). Kept behind a token, as a bulk verb's dry run (decision 032).
 */
export async function dryRunHoldBulk(db: Db, actor: Principal, input: HoldBulkDryRunInput, limit = HOLD_BULK_LIMIT) {
  const user = requirePermission(actor, "hold:decide");
  const producers = visibleProducers(user, producersOf(input.target.producer));
  const holds = await db.hold.findMany({
    where: {
      status: "held",
      case: { state: "resolved" },
      ...(producers ? { producer: { in: [...producers] } } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit,
    include: { attempt: { select: { operation: { select: { operationId: true } } } } },
  });
  const acts: typeof holds = [];
  const skipped: BulkSkipped[] = [];
  for (const hold of holds) {
    const why = holdBulkRefusal(input.action.verb, await readSendFacts(db, hold));
    const operationId = hold.attempt.operation.operationId;
    if (why) skipped.push({ caseId: hold.caseId ?? "", operationId, ...why, at: "dry_run" });
    else acts.push(hold);
  }
  const money = new Map<string, bigint>();
  for (const hold of acts) money.set(hold.currency, (money.get(hold.currency) ?? 0n) + hold.amountMicros);
  const token = `hld_${randomBytes(32).toString("base64url")}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + BULK_PREVIEW_TTL_SECONDS * 1000);
  await db.bulkPreview.create({
    data: {
      tokenHash: hashToken(token),
      userId: user.userId,
      verb: input.action.verb,
      requestDigest: requestFingerprint({ action: input.action, target: input.target }),
      cases: acts.map((hold) => ({ id: hold.id, version: 0 })),
      skipped,
      expiresAt,
    },
  });
  return {
    token,
    expiresAt,
    verb: input.action.verb,
    willAct: acts.length,
    moneyByCurrency: [...money].map(([currency, micros]) => ({ currency, micros: Number(micros) })),
    holds: acts.map((hold) => ({
      holdRef: hold.id,
      holdId: hold.holdId,
      caseId: hold.caseId,
      operationId: hold.attempt.operation.operationId,
      amountMicros: Number(hold.amountMicros),
      currency: hold.currency,
    })),
    skipped,
  };
}

export type HoldBulkDryRun = Awaited<ReturnType<typeof dryRunHoldBulk>>;

/** The execution: the dry run's token, checked as a bulk verb's (a stale one changes nothing), starts a job. */
export async function startHoldBulkJob(db: Db, actor: Principal, input: HoldBulkStartInput) {
  const user = requirePermission(actor, "hold:decide");
  const preview = await takePreview(db, user.userId, input, new Date());
  return createBulkJob(db, user, {
    kind: "holds",
    previewId: preview.id,
    action: input.action,
    items: preview.cases,
    previewSkipped: preview.skipped,
    pace: input.pace,
  });
}

/**
 * One hold of a job, in its own transaction: asked again what is known of its send (it may have
 * changed since the dry run), then decided through `resolveHold`, the single-hold service and the
 * money writer (its own ledger entries, compare-and-set on `held` and audit row); a settle charges
 * the whole hold. A refusal is the hold's reason to be skipped.
 */
export async function executeHoldItem(
  db: Db,
  user: UserActor,
  action: HoldBulkAction,
  holdRef: string,
  alsoInside: (tx: Client.TransactionClient) => Promise<void>,
): Promise<Refusal | null> {
  let operationId = "";
  try {
    return await inTransaction(db, async (tx) => {
      const hold = await tx.hold.findUnique({
        where: { id: holdRef },
        include: { attempt: { select: { operation: { select: { operationId: true } } } } },
      });
      if (!hold) throw new AppError("not_found", "No such hold.");
      operationId = hold.attempt.operation.operationId;
      if (hold.status !== "held") throw new AppError("conflict", "This hold was already resolved by someone else.");
      const why = holdBulkRefusal(action.verb, await readSendFacts(tx, hold));
      if (why) return { ...why, operationId };
      const decision =
        action.verb === "settle"
          ? {
              kind: "settle" as const,
              chargeMicros: Number(hold.amountMicros),
              note: action.note,
              evidence: action.evidence,
            }
          : { kind: "release" as const, note: action.note, evidence: action.evidence };
      await resolveHold(tx, user, hold.id, decision);
      await alsoInside(tx);
      return null;
    });
  } catch (error) {
    if (!(error instanceof AppError) && !isDomainError(error)) throw error;
    return { code: error.code, message: error.message, operationId };
  }
}
