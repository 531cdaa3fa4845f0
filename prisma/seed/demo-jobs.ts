import type { Stage } from "@/lib/domain/stages";

/** What the provider will say about a demo case's job: mostly a recovery that works, a few failures on purpose. */
export type DemoJobFate = "works" | "generation_failed" | "outputs_gone" | "unknown_to_provider";

export type DemoJob = { id: string; provider: "replicate" | "fal"; model: string; fate: DemoJobFate };

/** Demo case `index` (stage and model as the demo parks them) has this job, if its stage knows one. */
export function demoJobOf(index: number, stage: Stage, provider: string, model: string): DemoJob | null {
  if (stage !== "polling" && stage !== "delivery") return null;
  const id = `${provider}-job-${index.toString(36)}x${index * 7919}`;
  return { id, provider: provider === "fal" ? "fal" : "replicate", model, fate: fateOf(index, stage) };
}

// One of each failure, on purpose, among the first cases a newcomer opens; the rest recover.
function fateOf(index: number, stage: Stage): DemoJobFate {
  if (stage === "polling" && index === 7) return "generation_failed";
  if (stage === "delivery" && index === 9) return "outputs_gone";
  if (stage === "polling" && index === 13) return "unknown_to_provider";
  return "works";
}

/**
 * The provider simulator forgets its jobs when it stops, so every demo start gives it the demo
 * cases' jobs again (finished, their outputs kept a day unless deleted on purpose), through its
 * admin route; a job "unknown to the provider" is simply not given.
 */
export async function seedDemoJobs(
  simulatorUrl: string,
  jobs: DemoJob[],
  fetchImpl: typeof fetch = fetch,
): Promise<number> {
  let seeded = 0;
  for (const job of jobs) {
    if (job.fate === "unknown_to_provider") continue;
    const response = await fetchImpl(`${simulatorUrl}/__admin/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        provider: job.provider,
        id: job.id,
        model: job.model,
        outcome: job.fate === "generation_failed" ? "failed" : "succeeded",
        ...(job.fate === "generation_failed" ? { error: "NSFW filter triggered", errorOnStatus: true } : {}),
        queuedMs: 0,
        runningMs: 0,
        outputTtlMs: job.fate === "outputs_gone" ? 0 : 24 * 60 * 60_000,
        resultTtlMs: job.fate === "outputs_gone" ? 0 : 24 * 60 * 60_000,
        outputBytes: 256 * 1024,
      }),
    });
    await response.body?.cancel();
    if (response.status !== 201 && response.status !== 409) {
      throw new Error(`the simulator refused demo job ${job.id} (${response.status})`);
    }
    seeded += 1;
  }
  return seeded;
}
