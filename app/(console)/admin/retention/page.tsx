import type { Metadata } from "next";
import { RetentionPolicyForm } from "@/components/admin/retention-policy-form";
import { formatBytes, retentionDaysText } from "@/components/retention/retention-text";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { dryRunRetention, getRetentionPolicy } from "@/lib/services/retention/retention-policy";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Retention" };

export default async function AdminRetentionPage() {
  const actor = await requirePageUser("admin:settings");
  const [policy, dryRun] = await Promise.all([getRetentionPolicy(db(), actor), dryRunRetention(db(), actor)]);
  return (
    <section aria-labelledby="retention-heading" className="space-y-4">
      <div>
        <h1 id="retention-heading" className="text-2xl font-semibold">
          Retention
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          After the policy's days from resolution, a case's customer text (evidence, request summary, notes, provider
          detail, notification payloads) is replaced by a redaction marker and its stored videos are deleted. IDs,
          stages, amounts, ledger entries, decisions, actors, times and hashes stay, and the audit chain still verifies.
          A case with a hold still held, a pending replacement, an open suspected duplicate or a notification not yet
          sent waits until that is settled. A worker runs it hourly, and again at once while a backlog is left.
        </p>
      </div>
      <div
        className="rounded border border-slate-300 bg-white p-4 text-sm text-slate-700"
        data-testid="retention-policy"
      >
        <p>
          Global policy: <strong className="text-slate-900">{retentionDaysText(policy.globalDays)}</strong>
        </p>
        <p>
          Next run: <Time at={policy.nextRunAt} /> · last run: <Time at={policy.lastRunAt} fallback="never" />
          {policy.lastRunAt ? ` (${policy.lastRedacted} cases redacted)` : ""}
        </p>
      </div>
      {policy.producers.length > 0 && (
        <Table caption="Producers with a policy of their own">
          <TableHead columns={["Producer", "Policy"]} />
          <tbody>
            {policy.producers.map((row) => (
              <Row key={row.producer}>
                <RowHeader scope="row">{row.producer}</RowHeader>
                <Cell>{retentionDaysText(row.days)}</Cell>
              </Row>
            ))}
          </tbody>
        </Table>
      )}
      <div
        className="rounded border border-slate-300 bg-white p-4 text-sm text-slate-700"
        data-testid="retention-dry-run"
      >
        <h2 className="font-semibold text-slate-900">Dry run: what a run now would touch</h2>
        <p className="mt-1">
          {dryRun.cases} {dryRun.cases === 1 ? "case" : "cases"} · {dryRun.operations}{" "}
          {dryRun.operations === 1 ? "operation" : "operations"} without a case · oldest resolved{" "}
          <Time at={dryRun.oldestResolvedAt} /> · {formatBytes(dryRun.bytes)} of videos
        </p>
      </div>
      <div className="rounded border border-slate-300 bg-white p-4">
        <h2 className="mb-2 font-semibold">Set a policy</h2>
        <RetentionPolicyForm />
      </div>
    </section>
  );
}
