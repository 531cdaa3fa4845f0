import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { processShared } from "@/lib/process-shared";
import { type WorkerContext, workerContextFromEnv } from "./worker-context";

/** One context per server process: adapters and storage are reused across ticks. */
export function processWorkerContext(): WorkerContext {
  return processShared("worker-context", () => workerContextFromEnv(db(), env(), process.env));
}
