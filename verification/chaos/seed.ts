import type { PrismaClient } from "../../lib/db/client";
import { requestFingerprint } from "../../lib/domain/fingerprint";
import type { Principal } from "../../lib/domain/principal";
import { createAccessToken } from "../../lib/services/access/create-access-token";
import { upsertUser } from "../../lib/services/admin/upsert-user";
import { approveCase } from "../../lib/services/case/approve-case";
import { parkCase } from "../../lib/services/case/park-case";
import { mapPool } from "../shared/random";
import { seedSimulatorJob } from "../shared/simulator-client";
import { pickScenario, type RunningRange, type Scenario, STILL_RUNNING_MS } from "./scenarios";

export type SeededAction = { caseId: string; actionId: string; jobId: string; scenario: Scenario };

const MODELS = {
  replicate: "minimax/video-01",
  fal: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
} as const;

const hex = (random: () => number, length: number) =>
  Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join("");

/** A well-formed job ID the provider has never issued. */
function unknownJobId(provider: keyof typeof MODELS, random: () => number): string {
  if (provider === "fal")
    return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-8${hex(random, 3)}-${hex(random, 12)}`;
  return Array.from({ length: 26 }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(random() * 36)]).join("");
}

/**
 * Ready recovery actions made the way production makes them: the job exists at the provider
 * (seeded through the simulator's control plane, never a create call), a producer parks the case
 * with its API key, and a reviewer approves the stage's recovery.
 */
export async function seedChaosActions(
  db: PrismaClient,
  input: {
    simulatorUrl: string;
    count: number;
    random: () => number;
    concurrency: number;
    runId: string;
    /** Action i meets scenarios[i] instead of a weighted pick (a test's one of each). */
    scenarios?: Scenario[];
    /** How long still-running jobs run; STILL_RUNNING_MS unless given. */
    stillRunningMs?: RunningRange;
  },
  log: (line: string) => void,
): Promise<SeededAction[]> {
  const key = await createAccessToken(db, "cli", { kind: "api_key", name: `chaos-shop-${input.runId}` });
  const shop: Principal = { kind: "api_key", apiKeyId: key.id, name: key.name };
  const user = await upsertUser(db, {
    email: `chaos-reviewer-${input.runId}@example.com`,
    roles: ["reviewer"],
    password: `chaos-${input.runId}-unused-password`,
  });
  const reviewer: Principal = {
    kind: "user",
    userId: user.id,
    email: user.email,
    name: user.name,
    roles: user.roles,
    producers: null,
  };
  const plan = Array.from({ length: input.count }, (_, index) => {
    const scenario = input.scenarios?.[index] ?? pickScenario(input.random);
    const provider = index % 2 === 0 ? ("replicate" as const) : ("fal" as const);
    return {
      index,
      scenario,
      provider,
      job: scenario.job?.(input.random, input.stillRunningMs ?? STILL_RUNNING_MS),
      unknownId: unknownJobId(provider, input.random),
    };
  });
  let done = 0;
  const started = Date.now();
  return mapPool(plan, input.concurrency, async (item) => {
    const model = MODELS[item.provider];
    const jobId = item.job
      ? await seedSimulatorJob(input.simulatorUrl, { ...item.job, provider: item.provider, model })
      : item.unknownId;
    const operationId = `chaos-${input.runId}-${String(item.index).padStart(6, "0")}`;
    const { caseId } = await parkCase(db, shop, {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: item.scenario.stage,
      provider: item.provider,
      model,
      providerJobId: jobId,
      requestFingerprint: requestFingerprint({ prompt: `chaos order ${operationId}` }),
      evidence: { summary: `${item.scenario.name}: parked by the chaos run`, observedAt: new Date().toISOString() },
      hold: { holdId: `hold-${operationId}`, amountMicros: 500_000, currency: "USD" },
    });
    const action = item.scenario.stage === "polling" ? "resume_poll" : "retry_delivery";
    const { actionId } = await approveCase(db, reviewer, caseId, { action, evidence: "approved for the chaos run" });
    done += 1;
    if (done % 1000 === 0) log(`seeded ${done}/${input.count} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    return { caseId, actionId, jobId, scenario: item.scenario };
  });
}
