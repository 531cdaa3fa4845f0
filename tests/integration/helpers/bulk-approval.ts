import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import type { BulkTarget } from "@/lib/validation/bulk";

/**
 * A bulk approval as the console and the API make it: the dry run now, and its execution with the
 * dry run's token whenever the test calls `execute` (so a test can change cases in between).
 */
export async function previewApproval(
  db: Db,
  actor: Principal,
  input: { evidence: string; target: BulkTarget },
  limit?: number,
) {
  const action = { verb: "approve", evidence: input.evidence } as const;
  const preview = await dryRunBulk(db, actor, { mode: "dry_run", action, target: input.target }, limit);
  const execute = () => executeBulk(db, actor, { mode: "execute", action, target: input.target, token: preview.token });
  return { preview, execute };
}

/** The dry run and its execution straight after. */
export async function bulkApprove(
  db: Db,
  actor: Principal,
  input: { evidence: string; target: BulkTarget },
  limit?: number,
) {
  const { preview, execute } = await previewApproval(db, actor, input, limit);
  return { preview, result: await execute() };
}
