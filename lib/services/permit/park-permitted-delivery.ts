import type { Db, Prisma } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { storedText } from "@/lib/domain/stored-text";
import { AppError } from "@/lib/errors";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { requireProducer } from "../access/actor";
import { keepingRefusedClaims } from "../case/job-owner";
import { type ParkCaseResult, type ParkOptions, parkCase } from "../case/park-case";
import { readRegistration } from "../case/park-case-first-episode";
import { requireReadableJobId } from "../case/provider-job-id";
import { PERMIT_FOR_PARKING, parkPermit } from "./park-permit";
import { applyPermitReport, type LockedPermit } from "./report-outcome";

/**
 * `POST /api/v1/cases`: a producer parks an operation. A send made under a permit whose job
 * completed, and whose outputs the producer then failed to fetch, parks here at `delivery` on the
 * permit's own attempt and hold (decision 078), so the product copies the finished video (from its
 * vault when the provider has deleted it, decision 075) instead of the operation having no door.
 * Anything else is parked as before (`parkCase`, which refuses other parks of a permitted operation).
 *
 * Whether such a permit exists comes with the registration's one read (decision 083): almost no park
 * is of a permitted send, and an identical re-registration is answered from that read alone, with
 * no transaction. Only a park the read finds a permit for locks it, in the transaction below.
 */
export async function parkOperation(
  db: Db,
  actor: Principal,
  input: ParkCaseInput,
  options: ParkOptions = {},
): Promise<ParkCaseResult> {
  const read = await readRegistration(db, requireProducer(actor), input);
  if (!read.permitAwaitsPark) return parkCase(db, actor, input, options, read);
  const parked = await parkPermittedDelivery(db, actor, input, options);
  // The permit parked or moved on since the read: what was read is stale, so parkCase reads again.
  return parked ?? parkCase(db, actor, input, options);
}

/**
 * The permit of the parked attempt, sent and not parked yet (live, accepted or completed), locked
 * like a report, so the deadline sweep or a report racing the park ends in one outcome. A park at
 * delivery proves the completion (decision 056): a permit not yet told is first reported completed,
 * which records the job and settles the hold as the producer's completion report would; then the
 * permit parks at delivery. Null when no such permit exists.
 */
async function parkPermittedDelivery(
  db: Db,
  actor: Principal,
  input: ParkCaseInput,
  options: ParkOptions,
): Promise<ParkCaseResult | null> {
  const producer = requireProducer(actor);
  const storePrompts = options.settings?.STORE_PROMPTS === "1";
  return keepingRefusedClaims(db, actor, () =>
    inTransaction(db, async (tx) => {
      const [locked] = await tx.$queryRaw<LockedPermit[]>`
        SELECT p.id, (SELECT max(l.token) FROM send_permits l WHERE l.operation_ref = p.operation_ref) AS latest
        FROM send_permits p
        JOIN operations o ON o.id = p.operation_ref JOIN attempts a ON a.id = p.attempt_ref
        WHERE o.producer = ${producer.name} AND o.operation_id = ${input.operationId} AND a.attempt_id = ${input.attemptId}
          AND p.case_ref IS NULL AND p.status IN ('live', 'accepted', 'completed')
        FOR UPDATE OF p`;
      if (!locked) return null;
      const permit = await tx.sendPermit.findUniqueOrThrow({ where: { id: locked.id }, include: PERMIT_FOR_PARKING });
      requireSamePermit(permit, input);
      requireReadableJobId(permit.operation.provider, input.providerJobId);
      const evidence = { ...input.evidence, parkedAt: "delivery" };
      if (permit.status !== "completed") {
        await applyPermitReport(tx, producer, locked, {
          token: permit.token,
          report: { kind: "completed", providerJobId: input.providerJobId ?? permit.providerJobId },
          evidence,
          note: storedText(input, { storePrompts }) as Prisma.InputJsonValue,
          storePrompts,
        });
      }
      const reported = await tx.sendPermit.findUniqueOrThrow({ where: { id: locked.id }, include: PERMIT_FOR_PARKING });
      const { caseId } = await parkPermit(tx, {
        permit: reported,
        actor: producer,
        stage: "delivery",
        providerJobId: reported.providerJobId ?? input.providerJobId ?? null,
        next: "completed",
        evidence,
        storePrompts,
      });
      const row = await tx.case.findUniqueOrThrow({ where: { id: caseId }, select: { stage: true, state: true } });
      return { caseId, created: true, stage: row.stage, state: row.state };
    }),
  );
}

type PermitFacts = {
  hold: { holdId: string };
  providerJobId: string | null;
  operation: { provider: string; model: string; requestFingerprint: string };
};

/** The park must describe the permit's send: another provider, model, request, hold or job is another registration. */
function requireSamePermit(permit: PermitFacts, input: ParkCaseInput) {
  const { operation } = permit;
  const differs =
    operation.provider !== input.provider ||
    operation.model !== input.model ||
    operation.requestFingerprint !== input.requestFingerprint ||
    permit.hold.holdId !== input.hold.holdId ||
    (permit.providerJobId !== null &&
      input.providerJobId !== undefined &&
      permit.providerJobId !== input.providerJobId);
  if (differs) {
    throw new AppError(
      "conflicting_registration",
      "This attempt was sent under a send permit with other facts (provider, model, request, hold or job): park it with the permit's own.",
    );
  }
}
