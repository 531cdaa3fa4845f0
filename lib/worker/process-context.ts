import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { type WorkerContext, workerContextFromEnv } from "./worker-context";

const globalForWorker = globalThis as unknown as { workerContext?: WorkerContext };

/** One context per server process: adapters and storage are reused across ticks. */
export function processWorkerContext(): WorkerContext {
  globalForWorker.workerContext ??= workerContextFromEnv(db(), env(), process.env);
  return globalForWorker.workerContext;
}
