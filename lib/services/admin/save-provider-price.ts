import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { SavePriceForm } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import type { ProviderPriceRow } from "./list-provider-prices";

/** What the console's form parses (savePriceSchema), the price read into integer micro-units. */
export type SavePriceInput = SavePriceForm;

/** Creates or replaces the price of one provider/model (unique together), with its audit row. */
export async function saveProviderPrice(db: Db, actor: Principal, input: SavePriceInput): Promise<ProviderPriceRow> {
  const admin = requirePermission(actor, "admin:settings");
  const data = { unit: input.unit, priceMicros: BigInt(input.priceMicros), currency: input.currency };
  return inTransaction(db, async (tx) => {
    const key = { provider_model: { provider: input.provider, model: input.model } };
    const before = await tx.providerPrice.findUnique({ where: key });
    const saved = await tx.providerPrice.upsert({
      where: key,
      create: { provider: input.provider, model: input.model, ...data },
      update: data,
    });
    const row = { ...saved, priceMicros: input.priceMicros };
    const summary = (p: { unit: string; priceMicros: bigint | number; currency: string }) => ({
      provider: input.provider,
      model: input.model,
      unit: p.unit,
      priceMicros: Number(p.priceMicros),
      currency: p.currency,
    });
    await recordAudit(tx, {
      actor: admin,
      kind: before ? "price_updated" : "price_created",
      before: before ? summary(before) : null,
      after: summary(row),
    });
    return row;
  });
}
