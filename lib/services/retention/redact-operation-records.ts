import { REDACTED_LABEL } from "@/lib/audit/canonical";
import type { Db } from "@/lib/db/client";
import { redactPermitHoldNotes } from "../hold/writer/facts";
import { redactConflictEvidence } from "../job-claim/record-conflict";

/** How many of each kind of an operation's records a redaction replaced (the `fields` of its audit record). */
export type OperationRecordCounts = {
  requestSummary: number;
  permitReports: number;
  providerWebhooks: number;
  claimConflicts: number;
  permitHoldNotes: number;
};

/**
 * The customer content an operation keeps outside its case (DESIGN rule 20): its request summary,
 * the producer's permit reports, the provider webhooks kept about it (their bodies name outputs),
 * the evidence of claims on its jobs that met another claim, and finance's notes on its permits'
 * holds. Used for a case's operation and for one that never became a case, so both end the same.
 * Ids, statuses, job IDs, fingerprints and the signed references stay: they are facts.
 */
export async function redactOperationRecords(
  tx: Db,
  input: { operationRef: string; caseId: string | null; marker: string },
): Promise<OperationRecordCounts> {
  const { operationRef, caseId, marker } = input;
  return {
    requestSummary: await tx.$executeRaw`
      UPDATE operations SET request_summary = ${marker}::jsonb
       WHERE id = ${operationRef}::uuid AND request_summary IS NOT NULL AND NOT (request_summary ? '$redacted')`,
    permitReports: await tx.$executeRaw`
      UPDATE send_permits SET last_report = ${marker}::jsonb
       WHERE operation_ref = ${operationRef}::uuid AND last_report IS NOT NULL AND NOT (last_report ? '$redacted')`,
    providerWebhooks: await tx.$executeRaw`
      UPDATE provider_webhooks SET detail = ${marker}::jsonb, note = CASE WHEN note IS NULL THEN NULL ELSE ${REDACTED_LABEL} END
       WHERE (permit_ref IN (SELECT id FROM send_permits WHERE operation_ref = ${operationRef}::uuid)
              OR case_ref = ${caseId}::uuid)
         AND NOT (detail ? '$redacted')`,
    claimConflicts: await redactConflictEvidence(tx, { operationRef, marker }),
    permitHoldNotes: await redactPermitHoldNotes(tx, { operationRef, label: REDACTED_LABEL }),
  };
}
