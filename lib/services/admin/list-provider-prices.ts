import type { Db } from "@/lib/db/client";
import type { Price } from "@/lib/domain/money";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { PriceUnit } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";

export type ProviderPriceRow = {
  id: string;
  provider: string;
  model: string;
  unit: PriceUnit;
  priceMicros: number;
  currency: string;
  updatedAt: Date;
};

function micros(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new AppError("internal", "A stored price is out of range.");
  return Number(value);
}

const toRow = (row: Omit<ProviderPriceRow, "priceMicros"> & { priceMicros: bigint }): ProviderPriceRow => ({
  ...row,
  priceMicros: micros(row.priceMicros),
});

/** The table's unit names mapped onto the domain's Price, which duplicateCost() understands. */
export function asDomainPrice(row: Pick<ProviderPriceRow, "unit" | "priceMicros">): Price {
  return row.unit === "per_generation"
    ? { unit: "generation", priceMicros: row.priceMicros }
    : { unit: "second", priceMicrosPerSecond: row.priceMicros };
}

/** The whole price table, for the admins who maintain it. */
export async function listProviderPrices(db: Db, actor: Principal): Promise<ProviderPriceRow[]> {
  requirePermission(actor, "admin:settings");
  const rows = await db.providerPrice.findMany({ orderBy: [{ provider: "asc" }, { model: "asc" }] });
  return rows.map(toRow);
}

/**
 * One provider/model's price, for anyone who reads cases: the case page shows what an accidental
 * duplicate would cost. Null when nobody has entered a price for it.
 */
export async function lookupProviderPrice(
  db: Db,
  actor: Principal,
  key: { provider: string; model: string },
): Promise<(ProviderPriceRow & { price: Price }) | null> {
  requirePermission(actor, "case:read");
  const row = await db.providerPrice.findUnique({
    where: { provider_model: { provider: key.provider, model: key.model } },
  });
  if (!row) return null;
  const converted = toRow(row);
  return { ...converted, price: asDomainPrice(converted) };
}
