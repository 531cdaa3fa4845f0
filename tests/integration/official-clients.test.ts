import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRecoveryClient, type RecoveryClient, requestFingerprint } from "@/sdk/src";
import { genai, OFFICIAL_CLIENTS, type OfficialClient } from "@/verification/shared/official-clients";
import type { FaultRuleInput } from "@/verification/simulator";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { startProducerApp } from "./helpers/producer-app";
import { openTestDb } from "./setup/test-db";

// The providers' own official clients, inside the SDK's submit, against the simulator over real HTTP
// and the app's real permit API. Each client resends a create by itself after some failures; through
// the submit's one-create fetch, one submit puts at most one create on the wire whatever the client
// does, and the send ends `unknown` (parked for people), never as a second paid job.
process.env.AUTH_SECRET ??= "official-clients-secret-0123456789abcdef0123";
const TOKEN = "sim-official-clients-token";
const { db } = openTestDb();
let app: Awaited<ReturnType<typeof startProducerApp>>;
let recovery: RecoveryClient;
let sim: RunningSimulator;

beforeAll(async () => {
  app = await startProducerApp(db, "official-clients-shop");
  recovery = createRecoveryClient({ baseUrl: app.url, apiKey: app.apiKey });
  sim = await startSimulator({ port: 0, token: TOKEN });
});
afterAll(async () => {
  await sim.stop();
  await app.close();
});
beforeEach(() => sim.state.reset());

/** A create fault and what the provider holds after it: the job exists only when it was accepted. */
const FAULTS = {
  reset: { fault: { type: "reset" }, jobs: 1 },
  hang: { fault: { type: "hang" }, jobs: 1 },
  "429": { fault: { type: "rate_limit", retryAfterSeconds: 0 }, jobs: 0 },
  "503": { fault: { type: "http_error", status: 503 }, jobs: 0 },
} as const satisfies Record<string, { fault: FaultRuleInput["fault"]; jobs: number }>;

let n = 0;
function order(client: OfficialClient) {
  const operationId = `official-${client.provider}-${Date.now()}-${n++}`;
  return {
    operationId,
    attemptId: `${operationId}-a1`,
    requestFingerprint: requestFingerprint({ prompt: "a lighthouse at dusk" }),
    provider: client.provider,
    model: client.model,
    hold: { holdId: `hold-${operationId}`, amountMicros: 500_000, currency: "USD" },
  };
}

/** Jobs the simulator created through its create routes for `provider`: what would be billed. */
const jobsAt = (provider: string) =>
  [...sim.state.jobs.values()].filter((job) => job.provider === provider && job.createdByApi).length;

/** One submit whose create is the official client's, with `fault` on the provider's next create only. */
async function submitThrough(client: OfficialClient, fault: FaultRuleInput["fault"] | null, guarded: boolean) {
  if (fault) sim.state.faults.add({ match: { provider: client.provider, route: "create" }, fault, times: 1 });
  // The hang is cut by the submit's own wait; every other fault ends by itself.
  const createTimeoutMs = fault?.type === "hang" ? 1_000 : undefined;
  return recovery.submit(
    order(client),
    async (ctx) => ({ providerJobId: await client.create(ctx, { url: sim.url, token: TOKEN }, guarded) }),
    { createTimeoutMs },
  );
}

describe.each(OFFICIAL_CLIENTS)("$client inside submit", (client) => {
  it("sends one create and reports the job it made when nothing breaks", async () => {
    const result = await submitThrough(client, null, true);
    expect(result).toMatchObject({ sent: true, outcome: "accepted", reported: true });
    expect(jobsAt(client.provider)).toBe(1);
    expect(sim.state.createCount(client.provider)).toBe(1);
  });

  it.each(Object.entries(FAULTS))("puts one create on the wire on a %s and reports it unknown", async (_, f) => {
    const result = await submitThrough(client, f.fault, true);
    expect(result).toMatchObject({ sent: true, outcome: "unknown", reported: true });
    // The calls that reached the create route, not only the jobs: a resend refused as a 429 counts too.
    // A hang is cut by the submit's timeout, which on a very busy machine may come before the one
    // create reached the simulator: never more than one either way, and a job only for a create that arrived.
    const creates = sim.state.createCount(client.provider);
    if (f.fault.type === "hang") {
      // The simulator counts a create when its headers arrive and makes the job once the body is
      // read, so an abort in between leaves a counted create with no job.
      expect(creates).toBeLessThanOrEqual(1);
      expect(jobsAt(client.provider)).toBeLessThanOrEqual(creates);
    } else {
      expect(creates).toBe(1);
      expect(jobsAt(client.provider)).toBe(f.jobs);
    }
    const kase = await db.case.findFirstOrThrow({
      where: { operationId: result.sent ? result.permit.operationId : "" },
    });
    expect(kase).toMatchObject({ stage: "submission_uncertain", state: "parked" });
  });
});

// Without the guard, the same lost answer is a second paid job for four of the five clients: the
// property above is the guard's, not the simulator's or the client's.
describe.each(OFFICIAL_CLIENTS.filter((c) => c.provider !== "veo"))("$client without the guard", (client) => {
  it("creates a second job after a reset on the create", async () => {
    const result = await submitThrough(client, FAULTS.reset.fault, false);
    expect(result).toMatchObject({ sent: true, outcome: "accepted" });
    expect(jobsAt(client.provider)).toBe(2);
  });
});

describe("@google/genai without the guard", () => {
  it("sends one create after a reset: it retries nothing unless retryOptions is set", async () => {
    const result = await submitThrough(genai(), FAULTS.reset.fault, false);
    expect(result).toMatchObject({ sent: true, outcome: "unknown" });
    expect(jobsAt("veo")).toBe(1);
  });

  it("with retryOptions, resends a create refused with a 503 and makes the job; guarded, the options are dropped", async () => {
    const withRetries = genai({ attempts: 3, initialDelay: 0.01 });
    expect(await submitThrough(withRetries, FAULTS["503"].fault, false)).toMatchObject({ outcome: "accepted" });
    expect(sim.state.createCount("veo")).toBe(2);
    expect(jobsAt("veo")).toBe(1);
    sim.state.reset();
    expect(await submitThrough(withRetries, FAULTS["503"].fault, true)).toMatchObject({ outcome: "unknown" });
    expect(sim.state.createCount("veo")).toBe(1);
    expect(jobsAt("veo")).toBe(0);
  });
});
