import type { AssetStorage } from "../../lib/storage/types";
import type { SimWorker } from "./sim-worker";
import { planStorage } from "./worker-faults";
import { opOfOperationId, type World } from "./world";

/** Storage keys start with the operation ID (see lib/worker/deliver-outputs.ts). */
const operationOfKey = (key: string) => key.split("/")[0];

/**
 * The product's local storage with two faults: a disk that fails as the copy starts, and a crash
 * right after the verified copy was committed, before the publishing transaction.
 */
export function faultyStorage(world: World, worker: SimWorker, inner: AssetStorage): AssetStorage {
  return {
    exists: (key) => inner.exists(key),
    size: (key) => inner.size(key),
    async begin(key) {
      const index = opOfOperationId(world, operationOfKey(key));
      const op = index === null ? undefined : world.ops[index];
      const pending = await inner.begin(key);
      if (index === null || !op) return pending;
      const plan = planStorage(world, op);
      if (plan.diskFull) pending.sink.destroy(new Error("simulated disk failure"));
      return {
        sink: pending.sink,
        abort: () => pending.abort(),
        async commit() {
          const stored = await pending.commit();
          world.trace.record(index, `${worker.label} stored a verified copy`);
          if (plan.crashAfterCommit) return worker.crash(index, "after storing, before publishing");
          return stored;
        },
      };
    },
  };
}
