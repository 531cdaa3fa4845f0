import pg from "pg";
import { ownerUrl } from "@/tests/integration/setup/test-db";

/**
 * As the owner: moves a case's resolution `days` into the past, both where the console reads it
 * (cases.resolved_at) and in the owner-kept fact retention judges by (decision 052), which the
 * app's role cannot write. A test's stand-in for the days passing.
 */
export async function backdateResolution(caseId: string, days: number): Promise<void> {
  const owner = new pg.Client({ connectionString: ownerUrl() });
  await owner.connect();
  try {
    await owner.query("BEGIN");
    await owner.query("UPDATE cases SET resolved_at = now() - make_interval(days => $2) WHERE id = $1::uuid", [
      caseId,
      days,
    ]);
    const { rowCount } = await owner.query(
      "UPDATE case_resolution_facts SET resolved_at = now() - make_interval(days => $2) WHERE case_id = $1::uuid AND resolved",
      [caseId, days],
    );
    if (rowCount !== 1) throw new Error(`case ${caseId} is not resolved by its audit history`);
    await owner.query("COMMIT");
  } finally {
    await owner.end();
  }
}
