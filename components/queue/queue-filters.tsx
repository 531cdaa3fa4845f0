"use client";

import { usePathname, useRouter } from "next/navigation";
import { type ChangeEvent, useEffect, useRef, useState } from "react";
import { STATE_LABEL } from "@/components/ui/labels";
import { PARTIAL_SEARCH_MIN } from "@/lib/domain/queue-search";
import { CASE_STATES } from "@/lib/domain/stages";
import type { QueueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { QUEUE_SEARCH_ID } from "./queue-shortcuts";
import { SORT_WORDS } from "./sort-words";

const field = "mt-1 w-full rounded border border-slate-400 bg-white px-2 py-1 text-sm";
/** The searches sit beside their labels, so the filter row is one line high. */
const inline = "w-full min-w-0 rounded border border-slate-400 bg-white px-2 py-1 text-sm";
/** Typing waits this long after the last key before the queue is read again. */
const TYPING_PAUSE_MS = 350;
const AGE_PRESETS = [
  { minutes: 15, label: "15 minutes" },
  { minutes: 60, label: "1 hour" },
  { minutes: 360, label: "6 hours" },
  { minutes: 1440, label: "1 day" },
  { minutes: 10080, label: "7 days" },
];
const FIELDS = [
  "q",
  "text",
  "stage",
  "state",
  "flag",
  "sort",
  "producer",
  "provider",
  "model",
  "minAgeMinutes",
  "currency",
  "minHeld",
  "assigneeId",
] as const;
type Values = Record<(typeof FIELDS)[number], string>;

/** The form's values from the queue's own URL query (what queueQueryString writes). */
function valuesOf(queryString: string): Values {
  const params = new URLSearchParams(queryString);
  return Object.fromEntries(FIELDS.map((name) => [name, params.get(name) ?? ""])) as Values;
}

function queryOf(values: Values): string {
  const params = new URLSearchParams();
  for (const name of FIELDS) {
    const value = values[name].trim();
    // Text too short to search is not sent: the hint under the field asks for more.
    if (value && !(name === "text" && value.length < PARTIAL_SEARCH_MIN)) params.set(name, value);
  }
  return params.toString();
}

/**
 * The filters apply as they change (selects at once, typing after a pause), and live in the URL,
 * so a view can be bookmarked, shared and saved. Without JavaScript the form still submits as a
 * plain GET. Everything but the two searches folds behind a "Filters" button, so the cases come
 * first on the screen (decision 063); the button says how many folded filters are on.
 */
export function QueueFilters({ queryString, options }: { queryString: string; options: QueueFilterOptions }) {
  const router = useRouter();
  const pathname = usePathname();
  const [values, setValues] = useState(() => valuesOf(queryString));
  const [open, setOpen] = useState(false);
  const sent = useRef(queryString);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // A change of URL from elsewhere (a stage tab, a saved view, Back) becomes the form's values;
  // the form's own navigation does not reset what is being typed.
  useEffect(() => {
    if (queryString !== sent.current) {
      sent.current = queryString;
      setValues(valuesOf(queryString));
    }
  }, [queryString]);
  useEffect(() => () => clearTimeout(timer.current), []);

  function apply(next: Values, delay: number) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const text = queryOf(next);
      if (text === sent.current) return;
      sent.current = text;
      router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
    }, delay);
  }

  const change = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    const { name, value } = event.target;
    const next = { ...values, [name]: value };
    if (name === "provider") next.model = "";
    setValues(next);
    apply(next, event.target.tagName === "SELECT" ? 0 : TYPING_PAUSE_MS);
  };
  const bind = (name: keyof Values) => ({ name, value: values[name], onChange: change, className: field });
  const active = FIELDS.filter((name) => !["q", "text", "stage", "sort"].includes(name) && values[name]).length;
  const models = options.providers.find((p) => p.provider === values.provider)?.models ?? [
    ...new Set(options.providers.flatMap((p) => p.models)),
  ];
  const ageOptions =
    AGE_PRESETS.some((p) => String(p.minutes) === values.minAgeMinutes) || !values.minAgeMinutes
      ? AGE_PRESETS
      : [...AGE_PRESETS, { minutes: Number(values.minAgeMinutes), label: `${values.minAgeMinutes} minutes` }];
  const shortSearch = values.q.trim().length > 0 && values.q.trim().length < PARTIAL_SEARCH_MIN;
  const shortText = values.text.trim().length > 0 && values.text.trim().length < PARTIAL_SEARCH_MIN;

  return (
    <form
      method="get"
      action="/queue"
      aria-label="Filter cases"
      className="rounded border border-slate-300 bg-white px-3 py-2"
      onSubmit={(event) => {
        event.preventDefault();
        apply(values, 0);
      }}
    >
      <input type="hidden" name="stage" value={values.stage} />
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <label className="flex min-w-0 flex-1 basis-64 items-center gap-2 text-sm font-medium">
          <span className="shrink-0">Search IDs</span>
          <input
            {...bind("q")}
            className={inline}
            id={QUEUE_SEARCH_ID}
            type="search"
            placeholder="part of an operation, attempt or job ID"
            aria-describedby="queue-search-hint"
          />
        </label>
        <label className="flex min-w-0 flex-1 basis-64 items-center gap-2 text-sm font-medium">
          <span className="shrink-0">Search text</span>
          <input
            {...bind("text")}
            className={inline}
            type="search"
            placeholder="a word of the error, evidence or a note"
            aria-describedby="queue-search-hint"
          />
        </label>
        <button
          type="button"
          className="rounded border border-slate-400 px-3 py-1 text-sm"
          aria-expanded={open}
          aria-controls="queue-more-filters"
          onClick={() => setOpen((o) => !o)}
        >
          Filters{active ? ` (${active})` : ""}
        </button>
      </div>
      <p id="queue-search-hint" className={shortSearch || shortText ? "mt-1 text-xs text-slate-700" : "sr-only"}>
        {shortSearch
          ? `Type ${PARTIAL_SEARCH_MIN} or more characters to match part of an ID; shorter text matches whole IDs only.`
          : shortText
            ? `Type ${PARTIAL_SEARCH_MIN} or more characters to search the text of errors, evidence and notes.`
            : "An ID in full finds its case; part of one finds every case containing it. Updates as you type."}
      </p>
      <div id="queue-more-filters" className={`${open ? "grid" : "hidden"} mt-2 grid-cols-2 gap-3 md:grid-cols-4`}>
        {/* Every order, also those whose column a narrow screen hides (last attempt below 1536 px). */}
        <div className="text-sm font-medium">
          <label htmlFor="queue-filter-sort">Sort</label>
          <select {...bind("sort")} value={values.sort || "age"} id="queue-filter-sort">
            {Object.entries(SORT_WORDS).map(([sort, words]) => (
              <option key={sort} value={sort}>
                {words}
              </option>
            ))}
          </select>
        </div>
        <div className="text-sm font-medium">
          <label htmlFor="queue-filter-state">State</label>
          <select {...bind("state")} id="queue-filter-state">
            <option value="">open (not resolved)</option>
            {CASE_STATES.map((s) => (
              <option key={s} value={s}>
                {STATE_LABEL[s].label}
              </option>
            ))}
          </select>
        </div>
        <div className="text-sm font-medium">
          <label htmlFor="queue-filter-flag">Flag</label>
          <select {...bind("flag")} id="queue-filter-flag">
            <option value="">any</option>
            <option value="escalated">escalated (deadline passed)</option>
            <option value="hold_open">resolved, hold open</option>
            <option value="producer_not_told">producer not told</option>
          </select>
        </div>
        <Picker label="Producer" bound={bind("producer")} none="any" choices={options.producers} />
        <div className="text-sm font-medium">
          <label htmlFor="queue-filter-assigneeId">Assigned to</label>
          <select {...bind("assigneeId")} id="queue-filter-assigneeId">
            <option value="">anyone or no one</option>
            {options.assignees.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <Picker
          label="Provider"
          bound={bind("provider")}
          none="any"
          choices={options.providers.map((p) => p.provider)}
        />
        <Picker label="Model" bound={bind("model")} none="any" choices={models} />
        <div className="text-sm font-medium">
          <label htmlFor="queue-filter-minAgeMinutes">Older than</label>
          <select {...bind("minAgeMinutes")} id="queue-filter-minAgeMinutes">
            <option value="">any age</option>
            {ageOptions.map((p) => (
              <option key={p.minutes} value={p.minutes}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="text-sm font-medium">
          <legend>Held at least</legend>
          <div className="flex gap-1">
            <input {...bind("minHeld")} inputMode="decimal" placeholder="0.00" aria-label="Held at least, amount" />
            <PickerSelect
              bound={{ ...bind("currency"), className: `${field} w-24` }}
              none="any currency"
              choices={options.currencies}
              aria-label="Held at least, currency"
            />
          </div>
        </fieldset>
        <div className="col-span-2 flex items-end gap-2 md:col-span-4">
          <noscript>
            <button type="submit" className="rounded bg-brand px-4 py-1.5 text-sm font-medium text-white">
              Apply
            </button>
          </noscript>
          <a href="/queue" className="rounded py-1.5 text-sm text-slate-800 underline">
            Clear all filters
          </a>
        </div>
      </div>
    </form>
  );
}

type Bound = {
  name: string;
  value: string;
  onChange: (event: ChangeEvent<HTMLSelectElement>) => void;
  className: string;
};

/** A select of known values plus "none"; a value from a hand-edited or saved URL stays choosable. */
function PickerSelect({
  bound,
  none,
  choices,
  "aria-label": ariaLabel,
  id,
}: {
  bound: Bound;
  none: string;
  choices: string[];
  "aria-label"?: string;
  id?: string;
}) {
  const all = bound.value && !choices.includes(bound.value) ? [...choices, bound.value] : choices;
  return (
    <select {...bound} id={id} aria-label={ariaLabel}>
      <option value="">{none}</option>
      {all.map((choice) => (
        <option key={choice} value={choice}>
          {choice}
        </option>
      ))}
    </select>
  );
}

function Picker({ label, ...select }: { label: string; bound: Bound; none: string; choices: string[] }) {
  const id = `queue-filter-${select.bound.name}`;
  return (
    <div className="text-sm font-medium">
      <label htmlFor={id}>{label}</label>
      <PickerSelect {...select} id={id} />
    </div>
  );
}
