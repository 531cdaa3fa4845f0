import Link from "next/link";
import { ACTION_KIND_WORDS } from "@/components/ui/code-words";
import { Cell, NumCell, Row, RowHeader, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { WORKER_HEALTH_WORDS, workerHealth } from "@/lib/domain/worker-health";
import type { WorkerView } from "@/lib/services/worker/list-workers";

/** One row per worker: its heartbeat, its leases and what it is doing, its last error, its rescues. */
export function WorkersTable({ workers, now }: { workers: WorkerView[]; now: Date }) {
  return (
    <Table caption="Workers, most recent tick first">
      <TableHead
        columns={[
          "Worker",
          { label: "Last tick", sort: "descending" },
          { label: "Leases held", align: "right" },
          "Working on",
          "Last error",
          { label: "Its leases that ran out", align: "right" },
          { label: "Expired leases it took over", align: "right" },
        ]}
      />
      <tbody>
        {workers.map((worker) => {
          const health = workerHealth(worker.lastTickAt, now);
          return (
            <Row key={worker.workerId}>
              <RowHeader>
                <span className="break-all">{worker.workerId}</span>
                <span
                  className={`block text-xs font-normal ${health === "silent" ? "text-red-800" : "text-slate-600"}`}
                >
                  {WORKER_HEALTH_WORDS[health]}
                  {worker.firstSeenAt ? (
                    <>
                      {", first heard from "}
                      <Time at={worker.firstSeenAt} />
                    </>
                  ) : null}
                </span>
              </RowHeader>
              <Cell>
                <Time at={worker.lastTickAt} fallback="never recorded" />
              </Cell>
              <NumCell>
                {worker.leasesHeld}
                {worker.leasesExpired > 0 ? (
                  <span className="block text-xs text-red-800">{worker.leasesExpired} ran out</span>
                ) : null}
              </NumCell>
              <Cell>
                {worker.current ? (
                  <>
                    {ACTION_KIND_WORDS[worker.current.kind]} at {worker.current.provider} for{" "}
                    <Link href={`/cases/${worker.current.caseId}`} className="underline">
                      operation {worker.current.operationId}
                    </Link>
                    <span className="block text-xs text-slate-600">
                      Lease until <Time at={worker.current.leaseUntil} />
                    </span>
                  </>
                ) : (
                  "Nothing"
                )}
              </Cell>
              <Cell>
                {worker.lastError ? (
                  <>
                    <span className="break-words">{worker.lastError}</span>
                    <span className="block text-xs text-slate-600">
                      At <Time at={worker.lastErrorAt} />
                    </span>
                  </>
                ) : (
                  "None"
                )}
              </Cell>
              <NumCell>{worker.leasesLost}</NumCell>
              <NumCell>{worker.leasesRescued}</NumCell>
            </Row>
          );
        })}
      </tbody>
    </Table>
  );
}

/** The same facts as one card per worker, for a phone, where the table would scroll sideways. */
export function WorkerCards({ workers, now }: { workers: WorkerView[]; now: Date }) {
  return (
    <ul className="space-y-3" aria-label="Workers, most recent tick first">
      {workers.map((worker) => (
        <li key={worker.workerId} className="rounded border border-slate-300 bg-white p-3 text-sm">
          <p className="break-all font-medium">{worker.workerId}</p>
          <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-slate-700">Status</dt>
            <dd>{WORKER_HEALTH_WORDS[workerHealth(worker.lastTickAt, now)]}</dd>
            <dt className="text-slate-700">Last tick</dt>
            <dd>
              <Time at={worker.lastTickAt} fallback="never recorded" />
            </dd>
            <dt className="text-slate-700">Leases held</dt>
            <dd>
              {worker.leasesHeld}
              {worker.leasesExpired > 0 ? `, ${worker.leasesExpired} ran out` : ""}
            </dd>
            <dt className="text-slate-700">Working on</dt>
            <dd className="break-words">
              {worker.current ? (
                <>
                  {ACTION_KIND_WORDS[worker.current.kind]} for{" "}
                  <Link href={`/cases/${worker.current.caseId}`} className="underline">
                    operation {worker.current.operationId}
                  </Link>
                </>
              ) : (
                "Nothing"
              )}
            </dd>
            <dt className="text-slate-700">Last error</dt>
            <dd className="break-words">
              {worker.lastError ? (
                <>
                  {worker.lastError} (at <Time at={worker.lastErrorAt} />)
                </>
              ) : (
                "None"
              )}
            </dd>
            <dt className="text-slate-700">Its leases that ran out</dt>
            <dd>{worker.leasesLost}</dd>
            <dt className="text-slate-700">Expired leases it took over</dt>
            <dd>{worker.leasesRescued}</dd>
          </dl>
        </li>
      ))}
    </ul>
  );
}
