import type { Metadata } from "next";
import { Suspense } from "react";
import { CreateMachineTokenForm } from "@/components/admin/create-machine-token-form";
import { TokenTable } from "@/components/admin/token-table";
import { LoadingState } from "@/components/ui/loading-state";
import { revokeMachineTokenAction } from "@/lib/actions/admin-actions";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listAccessTokens } from "@/lib/services/access/list-access-tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Worker tokens" };

export default async function AdminWorkerTokensPage() {
  const actor = await requirePageUser("admin:worker_tokens");
  return (
    <section aria-labelledby="worker-tokens-heading" className="space-y-4">
      <div>
        <h1 id="worker-tokens-heading" className="text-2xl font-semibold">
          Worker tokens
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Recovery workers claim approved actions with these tokens. Only a hash is stored: a token is shown once, when
          it is created.
        </p>
      </div>
      <CreateMachineTokenForm kind="worker" />
      <Suspense fallback={<LoadingState label="Loading worker tokens…" />}>
        <WorkerTokens actor={actor} />
      </Suspense>
    </section>
  );
}

async function WorkerTokens({ actor }: { actor: UserPrincipal }) {
  const tokens = await listAccessTokens(db(), actor, "worker");
  return (
    <TokenTable
      tokens={tokens}
      caption="Worker tokens"
      nameLabel="Worker"
      emptyText="No worker tokens yet. Create one for each recovery worker you run."
      revokeAction={revokeMachineTokenAction}
    />
  );
}
