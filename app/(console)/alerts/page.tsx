import type { Metadata } from "next";
import Link from "next/link";
import { forbidden } from "next/navigation";
import { Suspense } from "react";
import { Badge } from "@/components/ui/badge";
import { LoadingState } from "@/components/ui/loading-state";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { describeFigures } from "@/lib/domain/alert-messages";
import { ALERT_KINDS, type AlertRuleKind } from "@/lib/domain/alert-rules";
import { can } from "@/lib/domain/roles";
import { listAlertFirings } from "@/lib/services/alert/list-alert-firings";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alert firings" };

export default async function AlertFiringsPage() {
  const actor = await requirePageUser("case:read");
  if (actor.producers !== null) forbidden();
  return (
    <section aria-labelledby="firings-heading" className="space-y-4">
      <div>
        <h1 id="firings-heading" className="text-2xl font-semibold">
          Alert firings
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Each episode of an alert&apos;s condition, newest first, with the figures it fired on and its latest ones.
          {can(actor.roles, "admin:settings") ? (
            <>
              {" "}
              <Link href="/admin/alerts" className="text-brand underline">
                Configure alert rules
              </Link>
              .
            </>
          ) : null}
        </p>
      </div>
      <Suspense fallback={<LoadingState label="Loading alert firings…" />}>
        <FiringsTable actor={actor} />
      </Suspense>
    </section>
  );
}

async function FiringsTable({ actor }: { actor: UserPrincipal }) {
  const firings = await listAlertFirings(db(), actor, { limit: 100 });
  if (firings.length === 0) {
    return (
      <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
        No alert has fired yet.
      </p>
    );
  }
  return (
    <Table caption="Alert firings, newest first">
      <TableHead
        columns={[
          "Rule",
          "Status",
          { label: "Started", sort: "descending" },
          "Fired on",
          "Last reported",
          { label: "Messages", align: "right" },
          "Delivery",
        ]}
      />
      <tbody>
        {firings.map((firing) => {
          const kind = firing.kind as AlertRuleKind;
          const at = new Date(firing.resolvedAt ?? firing.lastNotifiedAt);
          return (
            <Row key={firing.id}>
              <RowHeader>
                {firing.ruleName}
                <span className="block text-xs font-normal text-slate-600">{ALERT_KINDS[kind].label}</span>
              </RowHeader>
              <Cell>
                {firing.status === "firing" ? (
                  <Badge tone="danger">firing</Badge>
                ) : (
                  <Badge tone="ok">
                    resolved <Time at={firing.resolvedAt} />
                  </Badge>
                )}
              </Cell>
              <Cell>
                <Time at={firing.startedAt} />
              </Cell>
              <Cell>{describeFigures(kind, firing.figures, new Date(firing.startedAt))}</Cell>
              <Cell>{describeFigures(kind, firing.lastFigures, at)}</Cell>
              {/* The messages written, not the steps: an episode ended quietly sent no "resolved". */}
              <NumCell>{firing.messages.delivered + firing.messages.pending + firing.messages.failed}</NumCell>
              <Cell>
                {firing.messages.delivered} delivered
                {firing.messages.pending ? `, ${firing.messages.pending} pending` : ""}
                {firing.messages.failed ? `, ${firing.messages.failed} given up` : ""}
              </Cell>
            </Row>
          );
        })}
      </tbody>
    </Table>
  );
}
