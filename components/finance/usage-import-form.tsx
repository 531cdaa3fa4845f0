"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldError, SelectField, useServerAction } from "@/components/ui/form";
import { importProviderCostsAction, importUsageFileAction } from "@/lib/actions/usage-actions";
import { formatMicros } from "@/lib/domain/money";
import type { UsageImportSummary } from "@/lib/services/usage/record-usage-lines";

const PROVIDERS: [string, string][] = [
  ["replicate", "Replicate"],
  ["fal", "fal"],
  ["runway", "Runway"],
  ["veo", "Google Veo"],
  ["luma", "Luma"],
];

/**
 * What an import did, in words: new lines, lines seen before, holds corrected, lines waiting for
 * their case's outcome and lines left unexplained.
 */
function summaryWords(data: UsageImportSummary): string {
  const moved = data.lines.filter((line) => line.outcome === "matched" && line.differenceMicros !== "0");
  const differences = moved
    .map(
      (line) =>
        `${line.providerJobId ?? "a line"}: ${formatMicros(BigInt(line.differenceMicros ?? "0"), line.currency)}`,
    )
    .slice(0, 5)
    .join("; ");
  return (
    `Read ${data.read} lines: ${data.added} new, ${data.alreadyImported} imported before. ` +
    `${data.matched} matched a hold, ${data.unexplained} unexplained.` +
    (data.waiting ? ` ${data.waiting} wait for their case's outcome before they settle a hold.` : "") +
    // Decision 074: lines of a job finance already explained as made outside the product.
    (data.knownOutside > 0 ? ` ${data.knownOutside} booked as made outside the product, as their job was.` : "") +
    (differences ? ` Differences posted: ${differences}.` : "")
  );
}

/**
 * Finance uploads a provider's usage export, or has the product read job costs from the providers whose
 * API states them (`costProviders`, from the server: the domain module is not for the browser bundle);
 * the page re-reads its gap table afterwards.
 */
export function UsageImportForm({ costProviders }: { costProviders: readonly string[] }) {
  const id = useId();
  const router = useRouter();
  const formRef = useRef<HTMLFormElement>(null);
  const file = useServerAction(importUsageFileAction, formRef);
  const costs = useServerAction(importProviderCostsAction);
  const [done, setDone] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const upload = form.get("file");
    setDone(null);
    const content = upload instanceof File ? await upload.text() : "";
    file.run(
      {
        provider: String(form.get("provider") ?? ""),
        format: String(form.get("format") ?? ""),
        fileName: upload instanceof File && upload.name ? upload.name : "upload.csv",
        content,
      },
      (data) => {
        setDone(summaryWords(data));
        router.refresh();
      },
    );
  }

  return (
    <div className="grid gap-3">
      <form
        ref={formRef}
        onSubmit={onSubmit}
        noValidate
        aria-label="Import a usage export"
        className="grid gap-3 rounded border border-slate-300 bg-white p-3 md:grid-cols-4"
      >
        <SelectField
          id={`${id}-provider`}
          path="provider"
          name="provider"
          label="Provider"
          defaultValue="runway"
          error={fieldError(file.result, "provider")}
        >
          {PROVIDERS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField
          id={`${id}-format`}
          path="format"
          name="format"
          label="File shape"
          defaultValue="generic"
          hint="One job a line: provider job ID, amount, currency, time. Or Google Cloud's billing export, or fal's billing events (JSON)."
          error={fieldError(file.result, "format")}
        >
          <option value="generic">One line per job</option>
          <option value="gcp_billing">Google Cloud billing export</option>
          <option value="fal_billing_events">fal billing events (JSON)</option>
        </SelectField>
        <div className="grid gap-1 text-sm" data-field="content">
          <label htmlFor={`${id}-file`} className="font-medium">
            Usage file (CSV)
          </label>
          <input
            id={`${id}-file`}
            name="file"
            type="file"
            accept=".csv,text/csv,.json,application/json"
            required
            className="text-sm"
          />
        </div>
        <div className="flex items-end">
          <Button type="submit" disabled={file.pending}>
            {file.pending ? "Importing…" : "Import"}
          </Button>
        </div>
        <div className="md:col-span-4">
          <FormError result={file.result} listIssues />
          <p role="status" className="text-sm text-slate-800">
            {done}
          </p>
        </div>
      </form>
      <form
        aria-label="Read job costs from a provider"
        onSubmit={(event) => {
          event.preventDefault();
          const provider = String(new FormData(event.currentTarget).get("costProvider") ?? "");
          const name = PROVIDERS.find(([value]) => value === provider)?.[1] ?? provider;
          setDone(null);
          costs.run({ provider, limit: 50 }, (data) => {
            setDone(`Asked ${name} for ${data.asked} jobs' costs. ${summaryWords(data)}`);
            router.refresh();
          });
        }}
        className="flex flex-wrap items-end gap-3 text-sm"
      >
        <SelectField
          id={`${id}-cost-provider`}
          path="provider"
          name="costProvider"
          label="Provider to read job costs from"
          defaultValue="runway"
          hint="Runway states each task's credits; fal's billing events name each request; Replicate's run metrics are priced from the price table, an estimate."
          error={fieldError(costs.result, "provider")}
        >
          {PROVIDERS.filter(([value]) => costProviders.includes(value)).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="secondary" disabled={costs.pending}>
          {costs.pending ? "Reading costs…" : "Read job costs"}
        </Button>
        <FormError result={costs.result} />
      </form>
    </div>
  );
}
