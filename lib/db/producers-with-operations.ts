import type { Db } from "./client";
import { Prisma } from "./generated/prisma/client";
import { sqlRows } from "./sql-rows";
import { type ProducerFilter, producerIn } from "./stat-figures";

/**
 * The producers that have sent operations, in name order, without scanning operations: a skip scan
 * of their (producer, operation_id) index, one probe per producer. `within` narrows them (a person's
 * scope), `limit` bounds the list a picker offers.
 */
export async function producersWithOperations(
  db: Db,
  options: { within?: ProducerFilter; limit?: number } = {},
): Promise<string[]> {
  const limit = options.limit === undefined ? Prisma.empty : Prisma.sql`LIMIT ${options.limit}`;
  const rows = await sqlRows<{ producer: string }>(
    db,
    Prisma.sql`
    WITH RECURSIVE p AS (
      (SELECT producer FROM operations ORDER BY producer LIMIT 1)
      UNION ALL
      SELECT (SELECT o.producer FROM operations o WHERE o.producer > p.producer ORDER BY o.producer LIMIT 1)
      FROM p WHERE p.producer IS NOT NULL
    )
    SELECT producer FROM p WHERE producer IS NOT NULL AND ${producerIn(options.within ?? null)} ${limit}`,
  );
  return rows.map((row) => row.producer);
}
