import type { Metadata } from "next";
import Link from "next/link";
import { Announcer } from "@/components/finance/announcer";
import { HoldsNotInvoicedTable } from "@/components/finance/holds-not-invoiced";
import { LedgerVersusInvoiceTable } from "@/components/finance/ledger-versus-invoice";
import { MoveJobForm } from "@/components/finance/move-job-form";
import { FinanceSection } from "@/components/finance/section";
import { UnexplainedCharges } from "@/components/finance/unexplained-charges";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { HOLDS_NOT_INVOICED_PAGE, listHoldsNotInvoiced } from "@/lib/services/usage/list-holds-not-invoiced";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { unexplainedChargesQuerySchema } from "@/lib/validation/usage";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Charges no operation explains" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

// Decision 074: what the providers charged, or their job lists show, that no operation owns. The
// permission check runs first, so anyone else gets a real 403 page.
export default async function UnexplainedChargesPage({ searchParams }: Props) {
  const actor = await requirePageUser("usage:import");
  const params = await searchParams;
  const query = unexplainedChargesQuerySchema.parse({
    provider: one(params.provider),
    page: one(params.page),
    pageSize: one(params.pageSize),
  });
  const view = await listUnexplainedCharges(db(), actor, query);
  const byProvider = query.provider ? { provider: query.provider } : {};
  const [balance, notInvoiced] = view.visible
    ? await Promise.all([ledgerVersusInvoice(db(), actor, byProvider), listHoldsNotInvoiced(db(), actor, byProvider)])
    : [[], []];
  const href = (changes: { provider?: string | null; page?: number }) => {
    const next = new URLSearchParams();
    const provider = changes.provider === undefined ? query.provider : changes.provider;
    if (provider) next.set("provider", provider);
    if ((changes.page ?? 1) > 1) next.set("page", String(changes.page));
    const text = next.toString();
    return `/finance/unexplained${text ? `?${text}` : ""}`;
  };
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  return (
    <section aria-labelledby="unexplained-heading">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="unexplained-heading" className="text-2xl font-semibold">
          Charges no operation explains
        </h1>
        <Link href="/finance/usage" className="text-sm text-brand underline">
          Provider usage
        </Link>
      </div>
      <p className="mt-1 text-sm text-slate-700">
        Jobs a provider billed for, or shows in its own job list, that no operation here owns: a client's hidden retry,
        a script, a bug. Attach each to the operation that sent it, or say it was made outside the product; either way
        it leaves this list, and the ledger then matches the provider's invoice.
      </p>
      {view.visible ? (
        <Announcer>
          <nav aria-label="Filter by provider" className="mt-4 flex flex-wrap gap-3 text-sm">
            {[null, ...PROVIDER_NAMES].map((provider) => (
              <Link
                key={provider ?? "all"}
                href={href({ provider, page: 1 })}
                aria-current={(query.provider ?? null) === provider ? "page" : undefined}
                className="text-brand underline aria-[current=page]:font-semibold aria-[current=page]:no-underline"
              >
                {provider ?? "Every provider"}
              </Link>
            ))}
          </nav>
          <FinanceSection
            id="unexplained-charges"
            title={`Unexplained: ${view.total}`}
            description="The operations offered match by request, model and time, best first; only uncertain submissions can take a job."
            empty={view.total === 0 ? "Every charge and listed job is explained." : null}
          >
            <UnexplainedCharges charges={view.charges} />
            {pages > 1 ? (
              <nav aria-label="Pages" className="mt-3 flex gap-4 text-sm">
                {view.page > 1 ? <Link href={href({ page: view.page - 1 })}>Previous page</Link> : null}
                <span>
                  Page {view.page} of {pages}
                </span>
                {view.page < pages ? <Link href={href({ page: view.page + 1 })}>Next page</Link> : null}
              </nav>
            ) : null}
          </FinanceSection>
          <FinanceSection
            id="ledger-versus-invoice"
            title="Ledger against the imported invoices"
            description="Per provider and currency: every imported line, what the ledger charged for them, what is still unexplained, and lines a hold took but has not applied yet."
            empty={balance.length === 0 ? "No usage has been imported yet." : null}
          >
            <LedgerVersusInvoiceTable rows={balance} />
          </FinanceSection>
          <FinanceSection
            id="holds-not-invoiced"
            title="Holds charged that no imported line names"
            description={`Not billed yet, billed nothing, or a send whose job another shop named as its own (the newest ${HOLDS_NOT_INVOICED_PAGE}).`}
            empty={notInvoiced.length === 0 ? "Every charged hold is named by an imported line." : null}
          >
            <HoldsNotInvoicedTable holds={notInvoiced} />
          </FinanceSection>
          <FinanceSection
            id="move-job"
            title="Move a job to the send that made it"
            description="When a shop named another operation's job as its own, that job's charge corrected the wrong hold and the shop's own job cannot be attached: move the job to the send that made it."
            empty={null}
          >
            <MoveJobForm providers={PROVIDER_NAMES} />
          </FinanceSection>
        </Announcer>
      ) : (
        <p className="mt-4 text-sm text-slate-700">
          These charges name no producer, so only a person who sees every producer can read and explain them.
        </p>
      )}
    </section>
  );
}
