import { STAGE_LABEL, STATE_LABEL } from "@/components/ui/labels";
import { microsToDecimal } from "@/lib/domain/money";
import { CASE_STATES, STAGES } from "@/lib/domain/stages";
import type { ListCasesQuery } from "@/lib/validation/list-cases";

const field = "mt-1 w-full rounded border border-slate-400 bg-white px-2 py-1 text-sm";

/** A plain GET form: the filter lives in the URL, so a view can be bookmarked and shared. */
export function QueueFilters({ query }: { query: ListCasesQuery }) {
  return (
    <form
      method="get"
      action="/queue"
      className="grid grid-cols-2 gap-3 rounded border border-slate-300 bg-white p-3 md:grid-cols-5"
      aria-label="Filter cases"
    >
      <label className="col-span-2 text-sm font-medium md:col-span-2">
        Search (operation, attempt or provider job ID)
        <input name="q" defaultValue={query.q ?? ""} className={field} />
      </label>
      <label className="text-sm font-medium">
        Stage
        <select name="stage" defaultValue={query.stage ?? ""} className={field}>
          <option value="">any</option>
          {STAGES.map((s) => (
            <option key={s} value={s}>
              {STAGE_LABEL[s].label}
            </option>
          ))}
        </select>
      </label>
      <label className="text-sm font-medium">
        State
        <select name="state" defaultValue={query.state ?? ""} className={field}>
          <option value="">open (not resolved)</option>
          {CASE_STATES.map((s) => (
            <option key={s} value={s}>
              {STATE_LABEL[s].label}
            </option>
          ))}
        </select>
      </label>
      <label className="text-sm font-medium">
        Flag
        <select name="flag" defaultValue={query.flag ?? ""} className={field}>
          <option value="">any</option>
          <option value="escalated">escalated (deadline passed)</option>
          <option value="hold_open">resolved, hold open — needs a decision</option>
        </select>
      </label>
      <label className="text-sm font-medium">
        Sort
        <select name="sort" defaultValue={query.sort} className={field}>
          <option value="age">oldest first</option>
          <option value="amount">most money first</option>
        </select>
      </label>
      <label className="text-sm font-medium">
        Provider
        <input name="provider" defaultValue={query.provider ?? ""} className={field} />
      </label>
      <label className="text-sm font-medium">
        Model
        <input name="model" defaultValue={query.model ?? ""} className={field} />
      </label>
      <label className="text-sm font-medium">
        Older than (minutes)
        <input
          name="minAgeMinutes"
          type="number"
          min={0}
          defaultValue={query.minAgeSeconds !== undefined ? Math.floor(query.minAgeSeconds / 60) : ""}
          className={field}
        />
      </label>
      <label className="text-sm font-medium">
        Held at least (any currency)
        <input
          name="minHeld"
          inputMode="decimal"
          placeholder="0.00"
          defaultValue={query.minAmountMicros !== undefined ? microsToDecimal(query.minAmountMicros) : ""}
          className={field}
        />
      </label>
      <label className="text-sm font-medium">
        Assignee ID
        <input name="assigneeId" defaultValue={query.assigneeId ?? ""} className={field} />
      </label>
      <div className="col-span-2 flex items-end gap-2 md:col-span-5">
        <button
          type="submit"
          className="rounded bg-brand px-4 py-1.5 text-sm font-medium text-white hover:bg-brand-dark"
        >
          Apply
        </button>
        <a href="/queue" className="rounded px-3 py-1.5 text-sm text-slate-800 underline">
          Clear
        </a>
      </div>
    </form>
  );
}
