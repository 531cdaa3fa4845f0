import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { PausedWork } from "@/app/(console)/paused-work";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { WorkerCards, WorkersTable } from "@/components/workers/workers-table";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listWorkers } from "@/lib/services/worker/list-workers";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Workers" };

/** Each worker's heartbeat, leases, current action, last error and rescued leases (decision 064). */
export default async function WorkersPage() {
  const user = await requirePageUser("case:read");
  // Workers serve every producer: a person limited to some does not open this page (decision 035).
  if (user.producers !== null) forbidden();
  const workers = await listWorkers(db(), user);
  return (
    <section aria-labelledby="workers-heading" className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="workers-heading" className="text-2xl font-semibold">
          Workers
        </h1>
        <LiveRefresh />
      </div>
      <p className="text-sm text-slate-700">
        A worker that stops ticking keeps its leases until they run out; the next worker to tick then hands them back to
        the queue and takes them over. Counts run from when each worker was first heard from; a worker not heard from
        for a week is forgotten.
      </p>
      <PausedWork user={user} />
      {workers.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 bg-white p-4 text-sm text-slate-700">
          No worker has ticked in the last week.
        </p>
      ) : (
        <>
          <div className="hidden md:block">
            <WorkersTable workers={workers} now={new Date()} />
          </div>
          <div className="md:hidden">
            <WorkerCards workers={workers} now={new Date()} />
          </div>
        </>
      )}
    </section>
  );
}
