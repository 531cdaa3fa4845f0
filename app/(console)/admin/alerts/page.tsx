import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { AlertDestinationForm, type DestinationEditing } from "@/components/admin/alert-destination-form";
import { AlertRuleForm, type RuleFormValues } from "@/components/admin/alert-rule-form";
import { Badge } from "@/components/ui/badge";
import { LoadingState } from "@/components/ui/loading-state";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { ALERT_KINDS, type AlertRuleKind } from "@/lib/domain/alert-rules";
import { formatMicros, microsToDecimal } from "@/lib/domain/money";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { listAlertSettings, type PublicAlertRule } from "@/lib/services/alert/list-alert-settings";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts" };

type Props = { searchParams: Promise<{ rule?: string; destination?: string }> };

export default async function AdminAlertsPage({ searchParams }: Props) {
  const actor = await requirePageUser("admin:settings");
  const { rule, destination } = await searchParams;
  return (
    <section aria-labelledby="alerts-heading" className="space-y-6">
      <div>
        <h1 id="alerts-heading" className="text-2xl font-semibold">
          Alerts
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Rules the worker evaluates on every tick. An alert fires once when its condition starts to hold, again after
          the re-notify interval while it holds, and says &quot;resolved&quot; when it clears.{" "}
          <Link href="/alerts" className="text-brand underline">
            See every firing
          </Link>
          .
        </p>
      </div>
      <Suspense fallback={<LoadingState label="Loading alert rules…" />}>
        <AlertSettings actor={actor} editRule={rule} editDestination={destination} />
      </Suspense>
    </section>
  );
}

function thresholdText(rule: PublicAlertRule): string {
  const kind = rule.kind as AlertRuleKind;
  if (kind === "worker_silence") return `no tick for ${rule.windowMinutes} min`;
  const money =
    rule.thresholdMicros !== null && rule.thresholdCurrency
      ? ` or ${formatMicros(rule.thresholdMicros, rule.thresholdCurrency)} held`
      : "";
  const window = ALERT_KINDS[kind].window === "looks back" ? ` in ${rule.windowMinutes} min` : "";
  return `≥ ${rule.thresholdCount}${money}${window}`;
}

async function AlertSettings({
  actor,
  editRule,
  editDestination,
}: {
  actor: UserPrincipal;
  editRule: string | undefined;
  editDestination: string | undefined;
}) {
  const { destinations, rules } = await listAlertSettings(db(), actor);
  const ruleRow = editRule ? rules.find((r) => r.id === editRule) : undefined;
  const editingRule: RuleFormValues | null = ruleRow
    ? {
        ...ruleRow,
        kind: ruleRow.kind as AlertRuleKind,
        thresholdAmount: ruleRow.thresholdMicros === null ? "" : microsToDecimal(ruleRow.thresholdMicros),
        thresholdCurrency: ruleRow.thresholdCurrency ?? "USD",
      }
    : null;
  const destinationRow = editDestination ? destinations.find((d) => d.id === editDestination) : undefined;
  const editingDestination: DestinationEditing | null = destinationRow ?? null;
  const nameOf = (id: string) => destinations.find((d) => d.id === id)?.name ?? "—";
  return (
    <>
      <section aria-labelledby="rules-heading" className="space-y-4">
        <h2 id="rules-heading" className="text-xl font-semibold">
          Rules
        </h2>
        <AlertRuleForm key={editingRule?.id ?? "new"} editing={editingRule} destinations={destinations} />
        {rules.length === 0 ? (
          <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
            No alert rules yet.
          </p>
        ) : (
          <Table caption="Alert rules by name">
            <TableHead
              columns={[
                { label: "Name", sort: "ascending" },
                "Condition",
                "Threshold",
                "Re-notify",
                "Send to",
                "Status",
                { label: "Actions", hidden: true },
              ]}
            />
            <tbody>
              {rules.map((rule) => (
                <Row key={rule.id}>
                  <RowHeader>{rule.name}</RowHeader>
                  <Cell>{ALERT_KINDS[rule.kind as AlertRuleKind].label}</Cell>
                  <Cell>{thresholdText(rule)}</Cell>
                  <Cell>every {rule.renotifyMinutes} min</Cell>
                  <Cell>{nameOf(rule.destinationId)}</Cell>
                  <Cell>{rule.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>}</Cell>
                  <Cell>
                    <Link href={`/admin/alerts?rule=${rule.id}`} className="text-brand underline">
                      Edit<span className="sr-only"> {rule.name}</span>
                    </Link>
                  </Cell>
                </Row>
              ))}
            </tbody>
          </Table>
        )}
      </section>

      <section aria-labelledby="destinations-heading" className="space-y-4">
        <div>
          <h2 id="destinations-heading" className="text-xl font-semibold">
            Destinations
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            A signed webhook (Standard Webhooks, its secret shown once) or a Slack-compatible incoming webhook (a
            message with a link to the filtered queue). Addresses are checked again before every send.
          </p>
        </div>
        <AlertDestinationForm
          key={editingDestination?.id ?? "new"}
          editing={editingDestination}
          allowedHosts={[...webhookAllowListFromEnv(env()).entries]}
        />
        {destinations.length === 0 ? (
          <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
            No destinations yet.
          </p>
        ) : (
          <Table caption="Alert destinations by name">
            <TableHead
              columns={[
                { label: "Name", sort: "ascending" },
                "Kind",
                "URL",
                "Status",
                "Updated",
                { label: "Actions", hidden: true },
              ]}
            />
            <tbody>
              {destinations.map((destination) => (
                <Row key={destination.id}>
                  <RowHeader>{destination.name}</RowHeader>
                  <Cell>{destination.kind === "slack" ? "Slack message" : "Signed webhook"}</Cell>
                  <Cell className="max-w-md break-all">
                    <code>{destination.url}</code>
                  </Cell>
                  <Cell>{destination.disabled ? <Badge>disabled</Badge> : <Badge tone="ok">enabled</Badge>}</Cell>
                  <Cell>
                    <Time at={destination.updatedAt} />
                  </Cell>
                  <Cell>
                    <Link href={`/admin/alerts?destination=${destination.id}`} className="text-brand underline">
                      Edit<span className="sr-only"> {destination.name}</span>
                    </Link>
                  </Cell>
                </Row>
              ))}
            </tbody>
          </Table>
        )}
      </section>
    </>
  );
}
