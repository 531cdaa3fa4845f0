import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { ProducerPicker } from "@/components/filters/producer-picker";
import { LoadingState } from "@/components/ui/loading-state";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { can } from "@/lib/domain/roles";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { listHoldsSchema } from "@/lib/validation/finance";
import { FinanceContent } from "./finance-content";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Finance" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// The permission check runs before anything streams, so a non-finance user gets a real 403
// response; only then do the figures load behind a Suspense boundary with a visible placeholder.
export default async function FinancePage({ searchParams }: Props) {
  const actor = await requirePageUser("hold:read");
  const query = listHoldsSchema.parse(await searchParams);
  const producer = query.producer;
  const { producers } = can(actor.roles, "case:read") ? await queueFilterOptions(db(), actor) : { producers: [] };
  return (
    <section aria-labelledby="finance-heading">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="finance-heading" className="text-2xl font-semibold">
          Finance
        </h1>
        <div className="flex flex-wrap items-end gap-3">
          <ProducerPicker producers={producers} current={producer} />
          <Link href="#export" className="text-sm text-brand underline">
            Export CSV
          </Link>
          {can(actor.roles, "usage:import") ? (
            <>
              <Link href="/finance/usage" className="text-sm text-brand underline">
                Provider usage
              </Link>
              <Link href="/finance/unexplained" className="text-sm text-brand underline">
                Charges no operation explains
              </Link>
            </>
          ) : null}
        </div>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        Every reserved amount is held, settled or released; charges above a hold are flagged as overage, and the
        providers' own figures correct what was charged.
      </p>
      <Suspense
        key={`${query.status}:${query.view ?? ""}:${query.cursor ?? ""}:${producer ?? ""}:${query.operation ?? ""}`}
        fallback={<LoadingState label="Loading holds, totals and replacement requests…" />}
      >
        <FinanceContent actor={actor} query={query} producer={producer} />
      </Suspense>
    </section>
  );
}
