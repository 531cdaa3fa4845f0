import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../../../lib/db/client";
import { AppError } from "../../../lib/errors";
import type { UserActor } from "../../../lib/services/access/actor";
import { acceptFailure } from "../../../lib/services/case/accept-failure";
import { approveCase } from "../../../lib/services/case/approve-case";
import { parkCase } from "../../../lib/services/case/park-case";
import { reconcileCase } from "../../../lib/services/case/reconcile-case";
import { resolveHold } from "../../../lib/services/hold/resolve-hold";
import { parkBody } from "./app-ingest-bodies";

/**
 * A little of everything the services do to cases, holds and the ledger, on top of the loaded
 * million rows, so the running totals are checked after the triggers (not only the rebuild) kept
 * them: registrations, approvals, reconciliations, accepted failures, settled and released holds.
 */
export async function scaleTraffic(
  db: PrismaClient,
  people: { reviewer: UserActor; finance: UserActor },
): Promise<string> {
  const producer = { kind: "api_key" as const, apiKeyId: randomUUID(), name: "scale-traffic" };
  const run = `traffic-${Date.now().toString(36)}`;
  for (let i = 0; i < 100; i++) await parkCase(db, producer, parkBody(run, i));
  const open = (stage: string, take: number) =>
    db.$queryRaw<{ id: string }[]>`
      SELECT id FROM cases WHERE stage = ${stage}::"Stage" AND state = 'parked' ORDER BY opened_at DESC LIMIT ${take}`;
  for (const { id } of await open("polling", 20)) {
    await approveCase(db, people.reviewer, id, { action: "resume_poll", evidence: "status checks exhausted" });
  }
  for (const { id } of await open("submission_uncertain", 10)) {
    await reconcileCase(db, people.reviewer, id, {
      verdict: "attach",
      providerJobId: `found-${id}`,
      evidence: "matched",
    });
  }
  for (const { id } of await open("generation_failed", 10)) {
    await acceptFailure(db, people.reviewer, id, { evidence: "provider reported a policy failure" });
  }
  const backlog = await db.$queryRaw<{ id: string; amount_micros: bigint }[]>`
    SELECT id, amount_micros FROM holds WHERE status = 'held' ORDER BY created_at LIMIT 20`;
  for (const [i, hold] of backlog.entries()) {
    const decision =
      i % 3 === 0
        ? { kind: "release" as const, note: "no charge", evidence: "usage export" }
        : {
            kind: "settle" as const,
            chargeMicros: Number(hold.amount_micros) + (i % 3 === 1 ? 1_000 : -1_000),
            note: "invoice",
            evidence: "usage",
          };
    // A release the product refuses (the job completed, or may still: DESIGN rule 18) is settled
    // instead, as finance does when it is told so.
    await resolveHold(db, people.finance, hold.id, decision).catch(async (error: unknown) => {
      const refused =
        error instanceof AppError && (error.code === "send_completed" || error.code === "send_outcome_unknown");
      if (!refused) throw error;
      const settle = {
        kind: "settle" as const,
        chargeMicros: Number(hold.amount_micros),
        note: "invoice",
        evidence: "usage",
      };
      await resolveHold(db, people.finance, hold.id, settle);
    });
  }
  return "100 registrations, 20 approvals, 10 reconciliations, 10 accepted failures, 20 holds decided";
}
