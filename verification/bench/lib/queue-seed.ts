import pg from "pg";
import {
  type ApprovedCasesSeed,
  approvedCasesStatement,
  type SeededAction,
} from "../../../tests/integration/helpers/seed";

/** Runs one statement on a short-lived connection (seeding and checks, never the measured work). */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A reviewer to own the seeded decisions (decisions.reviewer_id must name a user). */
export async function seedReviewer(url: string): Promise<string> {
  const [row] = await sql<{ id: string }>(
    url,
    `INSERT INTO users (email, name, roles) VALUES ($1, 'bench reviewer', ARRAY['reviewer']::"Role"[]) RETURNING id`,
    [`bench-reviewer-${Date.now()}@example.com`],
  );
  if (!row) throw new Error("no reviewer row");
  return row.id;
}

/**
 * Approved cases with their ready actions (see approvedCasesStatement), owned by a fresh reviewer,
 * then vacuumed and analysed so the measured work starts from settled statistics.
 */
export async function seedApproved(url: string, input: Omit<ApprovedCasesSeed, "reviewerId">): Promise<SeededAction[]> {
  const { text, values } = approvedCasesStatement({ ...input, reviewerId: await seedReviewer(url) });
  const rows = await sql<SeededAction>(url, text, values);
  await sql(url, "VACUUM ANALYZE");
  return rows;
}

/**
 * `count` delivery cases, each approved for `retry_delivery` with one ready action: the rows an
 * approval leaves behind (operation, attempt, case at state `ready` version 2, decision, action).
 * Holds are left out: claiming and finishing never read them.
 */
export async function seedReadyDeliveries(url: string, input: { count: number; tag: string }): Promise<void> {
  await seedApproved(url, { ...input, producer: "bench", action: "retry_delivery" });
}
