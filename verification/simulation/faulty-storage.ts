import type { AssetStorage } from "@/lib/storage/types";
import type { SimWorker } from "./sim-worker";
import { planStorage } from "./worker-faults";
import { count, type OpRecord, opsOfOperationText, type World } from "./world";

/** Refusals of a "repeated" operation before its storage works again. */
const REPEATED_REFUSALS = 2;

/**
 * The operation a storage key belongs to: a case ID anywhere in the key, else the operation ID
 * text it starts with, which two shops may share (then the operation the worker just checked).
 */
function operationOfKey(world: World, worker: SimWorker, key: string): number | null {
  const parts = key.split("/");
  for (const part of parts) {
    const index = world.byCase.get(part);
    if (index !== undefined) return index;
  }
  const candidates = opsOfOperationText(world, parts[0] ?? "");
  if (worker.lastOperation !== null && candidates.includes(worker.lastOperation)) return worker.lastOperation;
  return candidates[0] ?? worker.lastOperation;
}

/** A local failure that repeats: the product's storage refuses the key before any byte is written. */
function refuses(world: World, op: OpRecord): boolean {
  const { storage } = op.plan;
  if (storage === "none" || op.storageFixed) return false;
  if (storage === "repeated" && op.storageFailures >= REPEATED_REFUSALS) return false;
  op.storageFailures += 1;
  count(world, `fault storage: refused (${storage === "always" ? "every time" : "repeatedly"})`);
  return true;
}

/**
 * The product's local storage with its faults: a disk that fails as the copy starts, a storage
 * that refuses the key outright (twice, or every time until someone fixes it after the auditor
 * saw the action loop), and a crash right after the verified copy was committed, before publishing.
 */
export function faultyStorage(world: World, worker: SimWorker, inner: AssetStorage): AssetStorage {
  return {
    exists: (key) => inner.exists(key),
    size: (key) => inner.size(key),
    open: (key) => inner.open(key),
    remove: (key) => inner.remove(key),
    listOlderThan: (cutoff, limit, after) => inner.listOlderThan(cutoff, limit, after),
    async begin(key) {
      const index = operationOfKey(world, worker, key);
      const op = index === null ? undefined : world.ops[index];
      if (index !== null && op && refuses(world, op)) {
        world.trace.record(index, `${worker.label} storage refused the key`);
        throw Object.assign(new Error("EACCES: simulated storage refusal"), { code: "EACCES" });
      }
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
