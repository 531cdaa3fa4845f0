import type { Metadata } from "next";
import { HistoryChart } from "@/components/history/history-chart";
import { STAGE_LABEL } from "@/components/ui/labels";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { HISTORY_DAYS } from "@/lib/domain/case-history";
import { isStage, STAGES } from "@/lib/domain/stages";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import { caseHistory } from "@/lib/services/overview/case-history";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "History" };

const SELECT = "mt-1 block rounded border border-slate-400 bg-white px-2 py-1 text-sm";

/** Cases opened, resolved and parked again per hour over two weeks, by stage and provider (decision 066). */
export default async function HistoryPage({
  searchParams,
}: {
  searchParams: Promise<{ stage?: string | string[]; provider?: string | string[] }>;
}) {
  const user = await requirePageUser("case:read");
  const params = await searchParams;
  const stage = isStage(params.stage) ? params.stage : null;
  const provider =
    typeof params.provider === "string" && (PROVIDER_NAMES as readonly string[]).includes(params.provider)
      ? params.provider
      : null;
  const history = await caseHistory(db(), user, { stage, provider });
  const scope = [stage ? STAGE_LABEL[stage].label : "every stage", provider ?? "every provider"].join(", ");
  return (
    <section aria-labelledby="history-heading" className="space-y-4">
      <div>
        <h1 id="history-heading" className="text-2xl font-semibold">
          History
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Cases opened, resolved and parked again (sent back to a person after their episode opened) per hour over the
          last {HISTORY_DAYS} days{user.producers ? ", for your producers" : ""}.
        </p>
      </div>
      <form method="get" className="flex flex-wrap items-end gap-3 text-sm" aria-label="Which cases">
        <label>
          Stage
          <select name="stage" defaultValue={stage ?? ""} className={SELECT}>
            <option value="">Every stage</option>
            {STAGES.map((s) => (
              <option key={s} value={s}>
                {STAGE_LABEL[s].label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Provider
          <select name="provider" defaultValue={provider ?? ""} className={SELECT}>
            <option value="">Every provider</option>
            {PROVIDER_NAMES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="rounded bg-brand px-4 py-2 font-medium text-white hover:bg-brand-dark">
          Show
        </button>
      </form>
      <HistoryChart hours={history.hours} scope={scope} />
    </section>
  );
}
