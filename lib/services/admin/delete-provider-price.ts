import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";

/** Removes a price; cases for that model then show no duplicate cost rather than a stale one. */
export async function deleteProviderPrice(db: Db, actor: Principal, input: { priceId: string }) {
  const admin = requirePermission(actor, "admin:settings");
  return inTransaction(db, async (tx) => {
    const rows = await tx.$queryRaw<
      { provider: string; model: string; unit: string; price_micros: bigint; currency: string }[]
    >`
      DELETE FROM provider_prices WHERE id = ${input.priceId}::uuid
      RETURNING provider, model, unit::text AS unit, price_micros, currency`;
    const deleted = rows[0];
    if (!deleted) throw new AppError("not_found", "No such price (perhaps someone already deleted it).");
    await recordAudit(tx, {
      actor: admin,
      kind: "price_deleted",
      before: {
        provider: deleted.provider,
        model: deleted.model,
        unit: deleted.unit,
        priceMicros: Number(deleted.price_micros),
        currency: deleted.currency,
      },
    });
    return { id: input.priceId };
  });
}
