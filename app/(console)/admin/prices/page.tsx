import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { DeletePriceButton } from "@/components/admin/delete-price-button";
import { PriceForm, type PriceFormValues } from "@/components/admin/price-form";
import { LoadingState } from "@/components/ui/loading-state";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { duplicateCost, formatMicros, formatMicrosPrecise, microsToDecimal } from "@/lib/domain/money";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { asDomainPrice, listProviderPrices, type ProviderPriceRow } from "@/lib/services/admin/list-provider-prices";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Prices" };

/** A typical clip length, only to make a per-second price concrete on this page. */
const EXAMPLE_SECONDS = 10;

function duplicateText(row: ProviderPriceRow): string {
  const price = asDomainPrice(row);
  return row.unit === "per_generation"
    ? `${formatMicros(duplicateCost(price, 1), row.currency)} each`
    : `${formatMicros(duplicateCost(price, 1, EXAMPLE_SECONDS), row.currency)} per ${EXAMPLE_SECONDS} s video`;
}

export default async function AdminPricesPage({ searchParams }: { searchParams: Promise<{ edit?: string }> }) {
  const actor = await requirePageUser("admin:settings");
  const { edit } = await searchParams;
  return (
    <section aria-labelledby="prices-heading" className="space-y-4">
      <div>
        <h1 id="prices-heading" className="text-2xl font-semibold">
          Prices
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          What each provider charges per model, one price per provider and model. Case pages use it to show what an
          accidental duplicate generation would cost. Amounts are stored as whole micro-units.
        </p>
      </div>
      <Suspense fallback={<LoadingState label="Loading prices…" />}>
        <PriceTable actor={actor} edit={edit} />
      </Suspense>
    </section>
  );
}

async function PriceTable({ actor, edit }: { actor: UserPrincipal; edit: string | undefined }) {
  const prices = await listProviderPrices(db(), actor);
  const editingRow = edit ? prices.find((row) => row.id === edit) : undefined;
  const editing: PriceFormValues | null = editingRow
    ? {
        provider: editingRow.provider,
        model: editingRow.model,
        unit: editingRow.unit,
        price: microsToDecimal(editingRow.priceMicros),
        currency: editingRow.currency,
      }
    : null;
  return (
    <>
      {edit && !editingRow ? (
        <p role="alert" className="rounded border border-amber-400 bg-amber-50 px-3 py-2 text-sm">
          That price no longer exists; perhaps someone deleted it.
        </p>
      ) : null}
      <PriceForm key={editingRow?.id ?? "new"} editing={editing} providers={PROVIDER_NAMES} />
      {prices.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
          No prices yet. Without one, case pages cannot show what a duplicate would cost.
        </p>
      ) : (
        <Table caption="Prices by provider and model">
          <TableHead
            columns={[
              { label: "Provider", sort: "ascending" },
              "Model",
              { label: "Price", align: "right" },
              { label: "Duplicate cost", align: "right" },
              "Updated",
              { label: "Actions", hidden: true },
            ]}
          />
          <tbody>
            {prices.map((row) => (
              <Row key={row.id} className={row.id === editingRow?.id ? "bg-blue-50" : ""}>
                <Cell>{row.provider}</Cell>
                <RowHeader>{row.model}</RowHeader>
                <NumCell>
                  {formatMicrosPrecise(row.priceMicros, row.currency)}
                  {row.unit === "per_second" ? " / second" : " / generation"}
                </NumCell>
                <NumCell>{duplicateText(row)}</NumCell>
                <Cell>
                  <Time at={row.updatedAt} />
                </Cell>
                <Cell>
                  <div className="flex flex-wrap items-start gap-2">
                    <Link
                      href={`/admin/prices?edit=${row.id}`}
                      className="rounded border border-slate-400 px-3 py-1 text-sm"
                      aria-label={`Edit ${row.provider} ${row.model}`}
                    >
                      Edit
                    </Link>
                    <DeletePriceButton priceId={row.id} label={`${row.provider} ${row.model}`} />
                  </div>
                </Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}
