import type { Principal } from "@/lib/domain/principal";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";

export type TickReport =
  | { kind: "done"; result: Awaited<ReturnType<typeof runTick>> }
  | { kind: "crashed"; where: string; operation: number | null }
  | { kind: "failed"; error: unknown };

/**
 * One worker process running the real tick code. A crash is the process vanishing at a seam: the
 * seam's promise never settles, so nothing after that point runs (no catch, no finally, no
 * hand-back), and the tick is abandoned with its claim; only the lease's expiry can free it.
 */
export class SimWorker {
  readonly actor: Principal & { kind: "worker" };
  ctx!: WorkerContext;
  /** True while it runs inside another worker's stalled call (no further stalls are planned there). */
  nested = false;
  listCalls = 0;
  webhookSends = 0;
  /** The operation of the last provider call this worker made (storage keys need not name it). */
  lastOperation: number | null = null;
  private crashedAt: ((where: string, operation: number | null) => void) | null = null;

  constructor(readonly label: string) {
    this.actor = {
      kind: "worker",
      tokenId: "00000000-0000-4000-8000-00000000e0e0",
      name: "sim-worker",
      workerId: label,
    };
  }

  /** Called by a seam at the crash point; never returns. */
  crash(operation: number | null, where: string): Promise<never> {
    this.crashedAt?.(where, operation);
    return new Promise<never>(() => {});
  }

  async tick(): Promise<TickReport> {
    this.listCalls = 0;
    this.webhookSends = 0;
    const crashed = new Promise<TickReport>((resolve) => {
      this.crashedAt = (where, operation) => resolve({ kind: "crashed", where, operation });
    });
    const ran = runTick(this.ctx, this.actor, { maxTasks: 1 }).then(
      (result): TickReport => ({ kind: "done", result }),
      (error: unknown): TickReport => ({ kind: "failed", error }),
    );
    const report = await Promise.race([ran, crashed]);
    this.crashedAt = null;
    return report;
  }
}
