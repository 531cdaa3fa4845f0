import type { Metadata } from "next";
import { Suspense } from "react";
import { CreateMachineTokenForm } from "@/components/admin/create-machine-token-form";
import { DemoProducerKeyNote } from "@/components/admin/demo-producer-key";
import { EndpointControls } from "@/components/admin/endpoint-controls";
import { EndpointForm } from "@/components/admin/endpoint-form";
import { TokenTable } from "@/components/admin/token-table";
import { LoadingState } from "@/components/ui/loading-state";
import { Cell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { revokeMachineTokenAction } from "@/lib/actions/admin-actions";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { listAccessTokens } from "@/lib/services/access/list-access-tokens";
import { findDemoProducerKey } from "@/lib/services/admin/demo-producer";
import { listNotificationEndpoints } from "@/lib/services/notification/list-notification-endpoints";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default async function AdminApiKeysPage() {
  const actor = await requirePageUser("admin:api_keys");
  return (
    <div className="space-y-8">
      <section aria-labelledby="api-keys-heading" className="space-y-4">
        <div>
          <h1 id="api-keys-heading" className="text-2xl font-semibold">
            API keys
          </h1>
          <p className="mt-1 text-sm text-slate-700">
            Producers park cases with these keys. Only a hash is stored: a key is shown once, when it is created, and
            identified by its prefix afterwards.
          </p>
        </div>
        <CreateMachineTokenForm kind="api_key" />
      </section>
      <Suspense fallback={<LoadingState label="Loading API keys and endpoints…" />}>
        <KeysAndEndpoints actor={actor} />
      </Suspense>
    </div>
  );
}

async function KeysAndEndpoints({ actor }: { actor: UserPrincipal }) {
  const [keys, endpoints, demoProducer] = await Promise.all([
    listAccessTokens(db(), actor, "api_key"),
    listNotificationEndpoints(db(), actor),
    findDemoProducerKey(db(), actor),
  ]);
  const producers = [...new Set(keys.map((key) => key.name))].sort();
  return (
    <>
      <TokenTable
        tokens={keys}
        caption="API keys by producer"
        nameLabel="Producer"
        emptyText={`No ${demoProducer ? "stored " : ""}API keys yet. Create one above for each application that parks cases.`}
        revokeAction={revokeMachineTokenAction}
      />
      {demoProducer ? <DemoProducerKeyNote producer={demoProducer} /> : null}

      <section aria-labelledby="endpoints-heading" className="space-y-4">
        <div>
          <h2 id="endpoints-heading" className="text-xl font-semibold">
            Notification endpoints
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Where each producer is told about its cases, signed with a secret shown once when the endpoint is created
            (or its secret rotated).
          </p>
        </div>
        <EndpointForm producers={producers} allowedHosts={[...webhookAllowListFromEnv(env()).entries]} />
        {endpoints.length === 0 ? (
          <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
            No notification endpoints yet.
          </p>
        ) : (
          <Table caption="Notification endpoints by producer">
            <TableHead
              columns={[
                { label: "Producer", sort: "ascending" },
                "URL",
                "Status",
                "Created",
                "Updated",
                { label: "Actions", hidden: true },
              ]}
            />
            <tbody>
              {endpoints.map((endpoint) => (
                <Row key={endpoint.id}>
                  <RowHeader>{endpoint.producer}</RowHeader>
                  <Cell className="max-w-md break-all">
                    <code>{endpoint.url}</code>
                  </Cell>
                  <Cell>{endpoint.disabledAt ? "disabled" : "enabled"}</Cell>
                  <Cell>
                    <Time at={endpoint.createdAt} />
                  </Cell>
                  <Cell>
                    <Time at={endpoint.updatedAt} />
                  </Cell>
                  <Cell>
                    <EndpointControls
                      endpoint={{
                        id: endpoint.id,
                        producer: endpoint.producer,
                        disabled: endpoint.disabledAt !== null,
                      }}
                    />
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
