import type { Db } from "@/lib/db/client";
import { producersWithOperations } from "@/lib/db/producers-with-operations";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/**
 * The producers this deployment knows: the names its producer API keys carry (revoked ones too: their
 * operations stay) and the producers its operations were sent under, which a person's scope is
 * chosen from (decision 057).
 */
export async function knownProducers(db: Db): Promise<string[]> {
  const [keys, operations] = await Promise.all([
    db.accessToken.findMany({ where: { kind: "api_key" }, distinct: ["name"], select: { name: true } }),
    producersWithOperations(db),
  ]);
  return [...new Set([...keys.map((k) => k.name), ...operations])].sort();
}

/** The known producers, for the admin choosing a person's scope. */
export async function listKnownProducers(db: Db, actor: Principal): Promise<string[]> {
  requirePermission(actor, "admin:users");
  return knownProducers(db);
}
