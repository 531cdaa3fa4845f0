import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/**
 * The producers this deployment knows: the names its producer API keys carry (revoked ones too: their
 * operations stay) and the producers its operations were sent under, which a person's scope is
 * chosen from (decision 057). Operations are read by a skip scan of their (producer, operation_id)
 * index, one probe per producer.
 */
export async function knownProducers(db: Db): Promise<string[]> {
  const [keys, operations] = await Promise.all([
    db.accessToken.findMany({ where: { kind: "api_key" }, distinct: ["name"], select: { name: true } }),
    sqlRows<{ producer: string }>(
      db,
      Prisma.sql`
      WITH RECURSIVE p AS (
        (SELECT producer FROM operations ORDER BY producer LIMIT 1)
        UNION ALL
        SELECT (SELECT o.producer FROM operations o WHERE o.producer > p.producer ORDER BY o.producer LIMIT 1)
        FROM p WHERE p.producer IS NOT NULL
      )
      SELECT producer FROM p WHERE producer IS NOT NULL`,
    ),
  ]);
  return [...new Set([...keys.map((k) => k.name), ...operations.map((o) => o.producer)])].sort();
}

/** The known producers, for the admin choosing a person's scope. */
export async function listKnownProducers(db: Db, actor: Principal): Promise<string[]> {
  requirePermission(actor, "admin:users");
  return knownProducers(db);
}
