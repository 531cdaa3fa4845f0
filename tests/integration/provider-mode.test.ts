import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { runTick } from "@/lib/worker/run-tick";
import { workerContextFromEnv } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Live mode with only one provider's key: the other provider's cases park with that reason on their
// timeline, and the configured provider is still checked in the same tick (no 500 for the tick).
process.env.WORKER_LOG = "0";
const { db, url } = openTestDb();
const shop = producer("live-subset-shop");
let sim: RunningSimulator;

beforeAll(async () => {
  // Stands in for Replicate's public API: the same routes, and it insists on the key it was given.
  sim = await startSimulator({ port: 0, token: "replicate-key", timings: { queuedMs: 0, runningMs: 600_000 } });
});
afterAll(() => sim.stop());

function liveReplicateOnly() {
  const raw = {
    DATABASE_URL: url,
    AUTH_SECRET: "live-subset-auth-secret-0123456789abcdef",
    PROVIDER_MODE: "live",
    REPLICATE_API_TOKEN: "replicate-key",
    REPLICATE_BASE_URL: `${sim.url}/replicate`,
    WORKER_LOG: "0",
  };
  return workerContextFromEnv(db, parseEnv(raw), raw);
}

async function approvedPolling(provider: "replicate" | "fal") {
  const job = sim.state.seedJob({ provider, outcome: "succeeded" });
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("polling", { provider, model: job.model, providerJobId: job.id }),
  );
  await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "go" });
  return caseId;
}

describe("live mode with only the providers that have keys", () => {
  it("parks a case for the unconfigured provider with that evidence and still checks the configured one", async () => {
    const falCase = await approvedPolling("fal");
    const replicateCase = await approvedPolling("replicate");
    const ctx = liveReplicateOnly();
    expect(Object.keys(ctx.adapters)).toEqual(["replicate"]);

    const tick = await runTick(ctx, worker(), { maxTasks: 10 });
    const outcome = (caseId: string) => tick.results.find((r) => r.caseId === caseId)?.outcome;
    expect(outcome(falCase)).toBe("parked");
    expect(outcome(replicateCase)).toBe("rescheduled");

    expect(await db.case.findUniqueOrThrow({ where: { id: falCase } })).toMatchObject({
      stage: "polling",
      state: "parked",
    });
    const unresolved = await db.auditEvent.findMany({ where: { caseId: falCase, kind: "recovery_unresolved" } });
    expect((unresolved[0]?.evidence as { evidence?: string } | undefined)?.evidence).toContain(
      'provider "fal" is not configured',
    );
    // The key reached the (stand-in) provider: the check was authorised, not refused.
    expect(sim.state.stats().creates.total).toBe(0);
    expect((await db.providerObservation.findFirstOrThrow({ where: { caseId: replicateCase } })).kind).toBe("running");
  });
});
