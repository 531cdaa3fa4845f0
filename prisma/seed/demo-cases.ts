import { createHash } from "node:crypto";
import type { PrismaClient } from "@/lib/db/client";
import type { Stage } from "@/lib/domain/stages";
import type { ProviderName } from "@/lib/providers/types";
import { DEMO_CASES_STEP, DEMO_PRODUCER } from "@/lib/services/admin/demo-producer";
import { demoEmail } from "@/lib/services/admin/seed-demo-users";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { type DemoJob, demoJobOf } from "./demo-jobs";

const MODELS: { provider: ProviderName; model: string; micros: number }[] = [
  { provider: "replicate", model: "kling-v2-1080p", micros: 1_500_000 },
  { provider: "fal", model: "fal-ai/omni-flash/720p", micros: 100_000 },
  { provider: "fal", model: "fal-ai/omni-flash/1080p", micros: 150_000 },
  { provider: "replicate", model: "veo-3", micros: 3_200_000 },
];
const STAGES: Stage[] = ["submission_uncertain", "polling", "polling", "delivery", "delivery", "generation_failed"];
const EVIDENCE: Record<Stage, string> = {
  submission_uncertain: "create request timed out after 60 s; no prediction id returned",
  polling: "status checks failed 5 times with 502 from the provider",
  delivery: "prediction succeeded but the output download returned 403 (URL expired)",
  generation_failed: "provider reported status failed: NSFW filter",
};

/** Every demo case's provider job, for the simulator to know on each start (seedDemoJobs). */
export function demoCaseJobs(count = DEMO_CASES): DemoJob[] {
  const jobs: DemoJob[] = [];
  for (let i = 0; i < count; i++) {
    const price = MODELS[i % MODELS.length] ?? MODELS[0];
    const job = price ? demoJobOf(i, STAGES[i % STAGES.length] ?? "polling", price.provider, price.model) : null;
    if (job) jobs.push(job);
  }
  return jobs;
}

const DEMO_CASES = 36;

/**
 * Demo data for a first look: cases in every stage, spread over hours and days, parked through
 * the real service (as a producer would), a few already approved. Created once.
 */
export async function seedDemoCases(db: PrismaClient, count = DEMO_CASES): Promise<boolean> {
  const claimed =
    await db.$executeRaw`INSERT INTO setup_steps (name) VALUES (${DEMO_CASES_STEP}) ON CONFLICT (name) DO NOTHING`;
  if (claimed === 0) return false;
  const reviewer = await db.user.findUnique({ where: { email: demoEmail("reviewer") } });
  for (let i = 0; i < count; i++) {
    const stage = STAGES[i % STAGES.length] ?? "polling";
    const price = MODELS[i % MODELS.length] ?? MODELS[0];
    if (!price) continue;
    const operationId = `demo-order-${String(1000 + i)}`;
    const job = demoJobOf(i, stage, price.provider, price.model);
    // Ages from minutes to days, so the queue and its charts look like a real backlog. The case is
    // written as parked then (its hold, reserve entry and timeline too), so every age on screen and
    // every hourly figure tells the same story; the submission and the evidence come just before.
    const openedAt = new Date(Date.now() - ((i * i * 13) % 4000) * 60_000);
    const before = (minutes: number) => new Date(openedAt.getTime() - minutes * 60_000).toISOString();
    const { caseId } = await parkCase(
      db,
      DEMO_PRODUCER,
      {
        operationId,
        attemptId: `${operationId}-a1`,
        stage,
        provider: price.provider,
        model: price.model,
        ...(job ? { providerJobId: job.id } : {}),
        requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
        request: {
          prompt: `Product video for SKU ${2000 + i}`,
          duration_seconds: 5 + (i % 3) * 5,
          resolution: price.model.includes("1080") ? "1080p" : "720p",
        },
        evidence: { summary: EVIDENCE[stage], observedAt: before(1), source: "demo-shop worker" },
        counters: { pollAttempts: stage === "polling" ? 5 : 1, deliveryAttempts: stage === "delivery" ? 3 : 0 },
        submittedAt: before(2 + (i % 5) * 7),
        hold: { holdId: `hold-${operationId}`, amountMicros: price.micros * (1 + (i % 3)), currency: "USD" },
      },
      { openedAt },
    );
    // A few approved already, so the worker's first ticks show recoveries (and one failure on purpose).
    const approval =
      stage === "polling" && i % 4 === 1
        ? { action: "resume_poll" as const, evidence: "provider status page shows the incident resolved" }
        : null;
    if (reviewer && approval) {
      const actor = {
        kind: "user" as const,
        userId: reviewer.id,
        email: reviewer.email,
        name: reviewer.name,
        roles: reviewer.roles,
        producers: null,
      };
      await approveCase(db, actor, caseId, approval);
    }
  }
  return true;
}
