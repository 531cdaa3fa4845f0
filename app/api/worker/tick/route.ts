import { z } from "zod";
import { apiRoute } from "@/lib/api/api-route";
import { requireWorker } from "@/lib/services/actor";
import { processWorkerContext } from "@/lib/worker/process-context";
import { runTick } from "@/lib/worker/run-tick";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

const tickSchema = z.strictObject({
  workerId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, "letters, digits and . _ : - (up to 100)"),
  maxTasks: z.number().int().min(1).max(50).default(10),
});

// The worker token is verified first (by the wrapper), before the body is even read.
export const POST = apiRoute({
  audience: "worker",
  body: tickSchema,
  handler: async ({ actor, body }) => {
    const worker = { ...requireWorker(actor), workerId: body.workerId };
    const { claimed, results } = await runTick(processWorkerContext(), worker, { maxTasks: body.maxTasks });
    return { claimed, results };
  },
});
