import type { Metadata } from "next";
import Link from "next/link";
import { FinanceSection } from "@/components/finance/section";
import { UnexplainedLines, UsageGapTable } from "@/components/finance/usage-gap-table";
import { UsageImportForm } from "@/components/finance/usage-import-form";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { PROVIDERS_WITH_JOB_COST } from "@/lib/domain/usage";
import { usageGap } from "@/lib/services/usage/usage-gap";
import { usageGapQuerySchema } from "@/lib/validation/usage";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Provider usage" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Decision 073: finance imports what the provider really charged and reads the gap to what was
// reserved. The permission check runs first, so anyone else gets a real 403 page.
export default async function UsagePage({ searchParams }: Props) {
  const actor = await requirePageUser("usage:import");
  const params = await searchParams;
  const query = usageGapQuerySchema.parse({ days: typeof params.days === "string" ? params.days : undefined });
  const view = await usageGap(db(), actor, query);
  return (
    <section aria-labelledby="usage-heading">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="usage-heading" className="text-2xl font-semibold">
          Provider usage
        </h1>
        <Link href="/finance" className="text-sm text-brand underline">
          Back to Finance
        </Link>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        A completion settles its whole hold; the provider's own usage export says what the job really cost. Each new
        line settles or corrects its job's hold with an adjustment entry, and the same file imported again changes
        nothing.
      </p>
      {actor.producers === null ? (
        <FinanceSection id="usage-import" title="Import a usage export">
          <UsageImportForm costProviders={PROVIDERS_WITH_JOB_COST} />
        </FinanceSection>
      ) : null}
      <FinanceSection
        id="usage-gap"
        title={`Reserved and charged, last ${view.days} days`}
        description="Only holds an imported line settled or corrected. A positive gap: the provider charged more than was reserved."
        empty={view.rows.length === 0 ? "No imported line has matched a hold in this period yet." : null}
      >
        <UsageGapTable rows={view.rows} />
      </FinanceSection>
      {view.unexplained.visible ? (
        <FinanceSection
          id="usage-unexplained"
          title={`Unexplained lines: ${view.unexplained.count}`}
          description={
            <>
              Lines whose job no hold here pays for. They stay listed until explained on{" "}
              <Link href="/finance/unexplained" className="text-brand underline">
                Charges no operation explains
              </Link>
              .
            </>
          }
          empty={view.unexplained.count === 0 ? "Every imported line matched a hold." : null}
        >
          <UnexplainedLines lines={view.unexplained.lines} />
        </FinanceSection>
      ) : null}
    </section>
  );
}
