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
