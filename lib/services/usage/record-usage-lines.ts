import type { Prisma } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import type { UsageLineFacts } from "@/lib/domain/usage";
import { explainIfKnownOutside } from "./explain-line-outside";
import { settleLine } from "./settle-line";

export type NewUsageLine = UsageLineFacts & { lineHash: string };

export type UsageLineResult = {
  lineNumber: number;
  providerJobId: string | null;
  amountMicros: string;
  currency: string;
  /** The hold it settled or corrected; null when unexplained (or already imported). */
  holdId: string | null;
  /** What the ledger charged before and after this line, and the difference it posted. */
  chargedBeforeMicros: string | null;
  chargedAfterMicros: string | null;
  differenceMicros: string | null;
  /**
   * `waiting`: matched to a hold whose send's outcome is not known yet; applied once it is (decision 077).
   * `known_outside`: its job was explained as made outside the product, so it was booked as such (decision 074).
   */
  outcome: "matched" | "waiting" | "unexplained" | "known_outside" | "already_imported";
  unmatchedReason: string | null;
  /** Why a waiting line waits, in words. */
  waitingFor?: string;
};

export type UsageImportSummary = {
  read: number;
  added: number;
  alreadyImported: number;
  matched: number;
  waiting: number;
  unexplained: number;
  knownOutside: number;
  lines: UsageLineResult[];
};

type Owner = { attempt_ref: string; hold_ref: string | null };

/**
 * Stores each line once (its hash; DESIGN rule 11's one job, one operation finds its hold) and
 * settles or corrects the matched hold through the money writer's services (decision 073), or
 * leaves it waiting while the hold's send may still complete (decision 077). A line whose job no
 * attempt names, or whose attempt has no hold, stays unexplained, listed and counted.
 */
export async function recordUsageLines(
  tx: Prisma.TransactionClient,
  actor: Principal,
  input: {
    provider: string;
    source: "api" | "file";
    format: string;
    sourceHash: string;
    how: string;
    lines: NewUsageLine[];
  },
): Promise<UsageImportSummary> {
  const who = actorColumns(actor);
  const results: UsageLineResult[] = [];
  for (const line of input.lines) {
    const [owner] = line.providerJobId
      ? await tx.$queryRaw<Owner[]>`
          SELECT a.id::text AS attempt_ref, h.id::text AS hold_ref
          FROM attempts a LEFT JOIN holds h ON h.attempt_ref = a.id
          WHERE a.provider = ${input.provider} AND a.provider_job_id = ${line.providerJobId}`
      : [];
    const reason = !owner ? "no_job" : owner.hold_ref === null ? "no_hold" : null;
    const [stored] = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO usage_lines (provider, provider_account, provider_job_id, model, usage_at, amount_micros, currency,
                               source, format, source_hash, line_hash, line_number, attempt_ref, hold_ref,
                               unmatched_reason, imported_by_id, imported_by)
      VALUES (${input.provider}, ${line.providerAccount}, ${line.providerJobId}, ${line.model}, ${line.usageAt},
              ${BigInt(line.amountMicros)}, ${line.currency}, ${input.source}::"UsageSource", ${input.format},
              ${input.sourceHash}, ${line.lineHash}, ${line.lineNumber}, ${owner?.attempt_ref ?? null}::uuid,
              ${reason === null ? (owner?.hold_ref ?? null) : null}::uuid, ${reason},
              ${who.actorKind === "user" ? who.actorId : null}::uuid, ${who.actorLabel})
      ON CONFLICT (line_hash) DO NOTHING RETURNING id::text`;
    const base = {
      lineNumber: line.lineNumber,
      providerJobId: line.providerJobId,
      amountMicros: String(line.amountMicros),
      currency: line.currency,
      holdId: null,
      chargedBeforeMicros: null,
      chargedAfterMicros: null,
      differenceMicros: null,
    };
    if (!stored) {
      results.push({ ...base, outcome: "already_imported", unmatchedReason: null });
      continue;
    }
    if (reason !== null || !owner?.hold_ref) {
      // A job finance already explained as made outside the product books its later lines the same way.
      const known = reason === "no_job" ? await explainIfKnownOutside(tx, actor, stored.id) : false;
      results.push({ ...base, outcome: known ? "known_outside" : "unexplained", unmatchedReason: reason });
      continue;
    }
    const outcome = await settleLine(tx, actor, {
      lineId: stored.id,
      holdRef: owner.hold_ref,
      currency: line.currency,
      how: input.how,
    });
    if (!outcome.matched) {
      results.push({ ...base, outcome: "unexplained", unmatchedReason: outcome.reason });
      continue;
    }
    if (outcome.waiting) {
      results.push({
        ...base,
        holdId: outcome.holdId,
        outcome: "waiting",
        unmatchedReason: null,
        waitingFor: outcome.why,
      });
      continue;
    }
    results.push({
      ...base,
      holdId: outcome.holdId,
      chargedBeforeMicros: String(outcome.before),
      chargedAfterMicros: String(outcome.after),
      differenceMicros: String(outcome.adjustmentMicros),
      outcome: "matched",
      unmatchedReason: null,
    });
  }
  const count = (outcome: UsageLineResult["outcome"]) => results.filter((r) => r.outcome === outcome).length;
  return {
    read: results.length,
    added: results.length - count("already_imported"),
    alreadyImported: count("already_imported"),
    matched: count("matched"),
    waiting: count("waiting"),
    unexplained: count("unexplained"),
    knownOutside: count("known_outside"),
    lines: results,
  };
}
