import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { PRICE_UNITS, type PriceUnit } from "@/lib/validation/admin";
import { currency as currencySchema } from "@/lib/validation/common";
import { requirePermission } from "../access/actor";
import { recordAudit } from "../case/writer/audit";
import type { ProviderPriceRow } from "./list-provider-prices";

export type SavePriceInput = {
  provider: string;
  model: string;
  unit: PriceUnit;
  priceMicros: number;
  currency: string;
};

function validate(input: SavePriceInput): SavePriceInput {
  const issues: { path: string; message: string }[] = [];
  const provider = typeof input.provider === "string" ? input.provider.trim() : "";
  const model = typeof input.model === "string" ? input.model.trim() : "";
  if (!provider || provider.length > 200 || /\s/.test(provider))
    issues.push({ path: "provider", message: "1–200 characters, no spaces" });
  if (!model || model.length > 200 || /\s/.test(model))
    issues.push({ path: "model", message: "1–200 characters, no spaces" });
  if (!PRICE_UNITS.includes(input.unit)) issues.push({ path: "unit", message: "per_generation or per_second" });
  if (!Number.isSafeInteger(input.priceMicros) || input.priceMicros <= 0)
    issues.push({ path: "price", message: "a positive whole number of micro-units" });
  if (!currencySchema.safeParse(input.currency).success)
    issues.push({ path: "currency", message: "a three-letter ISO 4217 code, e.g. USD" });
  if (issues.length) throw new AppError("invalid_request", "Check the highlighted fields.", { issues });
  return { ...input, provider, model };
}

/** Creates or replaces the price of one provider/model (unique together), with its audit row. */
export async function saveProviderPrice(db: Db, actor: Principal, raw: SavePriceInput): Promise<ProviderPriceRow> {
  const admin = requirePermission(actor, "admin:settings");
  const input = validate(raw);
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
