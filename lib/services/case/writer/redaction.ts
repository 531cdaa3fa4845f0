import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/**
 * A retention redaction of the case row itself: its last evidence replaced by the marker and the
 * time recorded. Not a transition (state, stage and version stay), but still a write to `cases`,
 * so it lives with the writer; a case reopened meanwhile is not resolved any more and is refused.
 */
export async function redactCaseRow(
  tx: Db,
  input: { caseId: string; marker: string; now: Date },
): Promise<{ episode: number; operationRef: string }> {
  const [row] = await tx.$queryRaw<{ episode: number; operation_ref: string }[]>`
    UPDATE cases SET last_evidence = ${input.marker}::jsonb, redacted_at = ${input.now}
     WHERE id = ${input.caseId}::uuid AND state = 'resolved'
    RETURNING episode, operation_ref`;
  if (!row) throw new AppError("lost_race", "The case was reopened before it could be redacted.");
  return { episode: row.episode, operationRef: row.operation_ref };
}
