import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as outcomeRoute from "@/app/api/v1/attempts/[attemptId]/outcome/route";
import * as authorizeRoute from "@/app/api/v1/replacement-requests/[id]/authorize/route";
import * as ackRoute from "@/app/api/v1/replacements/[id]/ack/route";
import * as replacementsRoute from "@/app/api/v1/replacements/route";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { noJobSettlingSeconds } from "@/lib/services/admin/provider-settings";
import { saveProviderSetting } from "@/lib/services/admin/save-provider-setting";
import { listSuspectedDuplicates } from "@/lib/services/case/list-suspected-duplicates";
import { FRESH_CHECK_KIND } from "@/lib/services/case/look-for-original-job";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { watchReplacedOriginals } from "@/lib/services/case/watch-replaced-originals";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { type ManualClock, manualClock } from "@/verification/simulator/clock";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { countRows } from "./helpers/tables";
import { openTestDb } from "./setup/test-db";

// Rule 14: a replacement resting on "no job exists" is paid for only after a fresh look finds nothing.
const { db } = openTestDb();
const MINUTE = 60_000;
const MODEL = "minimax/video-01";
const shop = producer("look-shop");
let sim: RunningSimulator;
let clock: ManualClock;
let adapters: ProviderAdapters;

beforeAll(async () => {
  clock = manualClock(Date.now());
  sim = await startSimulator({
    port: 0,
    clock,
    timings: { queuedMs: 0, runningMs: 0, outputBytes: 1024, outputTtlMs: 48 * 60 * MINUTE },
  });
  adapters = simulatorAdapters(sim.url, {
    retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, perAttemptTimeoutMs: 2_000 },
  });
});
afterAll(() => sim.stop());
afterEach(() => sim.state.faults.clear());

const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => "no error",
    (e) => codeOf(e) ?? "exception",
  );
/** Row counts with one more provider observation: the failed check is evidence, nothing else moved. */
const plusObservation = (counts: Record<string, number>) => ({
  ...counts,
  provider_observations: (counts.provider_observations ?? 0) + 1,
});

// Every case lives in its own past hour, so one test's jobs never fall in another's window.
let hour = 3;
let counter = 0;

/** An uncertain submission with no visible job, recorded as "no job exists", with a pending request. */
async function noJobCaseWithRequest(atProvider?: (submittedAt: Date, input: Record<string, unknown>) => void) {
  const submittedAt = new Date(clock.now() - hour++ * 60 * MINUTE);
  const input = { prompt: `harbour at dawn #${++counter}`, seconds: 5 };
  atProvider?.(submittedAt, input);
  const { caseId } = await parkCase(
    db,
    shop,
    parkInput("submission_uncertain", {
      model: MODEL,
      requestFingerprint: requestFingerprint(input),
      submittedAt: submittedAt.toISOString(),
    }),
  );
  const reviewer = await makeUser(db, ["reviewer"]);
  await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "nothing in the provider's list" });
  const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" });
  return { caseId, requestId, submittedAt, input, finance: await makeUser(db, ["finance"]) };
}

const observationsOf = (caseId: string) =>
  db.providerObservation.findMany({ where: { caseId, kind: FRESH_CHECK_KIND }, orderBy: { id: "asc" } });

describe("looking again before paying for a replacement", () => {
  it("refuses when the lagging list now shows the original job: suggestion, back to reconciliation, nothing bought", async () => {
    // The job exists all along, but the list shows it only half an hour after the verdict.
    let jobId = "";
    const { caseId, requestId, finance } = await noJobCaseWithRequest((submittedAt, input) => {
      const createdAt = submittedAt.getTime() + 4_000;
      jobId = sim.state.seedJob({
        provider: "replicate",
        model: MODEL,
        input,
        createdAt,
        notFoundForMs: clock.now() - createdAt + 30 * MINUTE,
      }).id;
    });
    const job = { id: jobId };
    const hidden = await adapters.replicate.listJobs?.({
      from: new Date(clock.now() - 24 * 60 * MINUTE),
      to: new Date(clock.now()),
    });
    expect(hidden?.kind === "ok" && hidden.jobs.some((j) => j.providerJobId === jobId)).toBe(false);
    clock.advance(31 * MINUTE);
    const before = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const attempts = await db.attempt.count();
    const holds = await db.hold.count();

    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters }))).toBe(
      "original_job_found",
    );

    const after = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(after).toMatchObject({ stage: "submission_uncertain", state: "parked", episode: before.episode });
    expect(after.providerJobId).toBeNull();
    expect(after.heldMicros).toBe(before.heldMicros);
    expect(await db.attempt.count()).toBe(attempts);
    expect(await db.hold.count()).toBe(holds);
    const suggestions = await db.reconciliationSuggestion.findMany({ where: { caseId, episode: after.episode } });
    expect(suggestions.map((s) => [s.providerJobId, s.status])).toEqual([[job.id, "open"]]);
    const request = await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } });
    expect(request.status).toBe("withdrawn");
    expect(request.closedReason).toContain(job.id);
    expect(request.newAttemptRef).toBeNull();
    const kinds = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => e.kind);
    expect(kinds.slice(-2)).toEqual(["returned_to_reconciliation", "replacement_request_closed"]);
    const [observation] = await observationsOf(caseId);
    expect(observation?.detail).toMatchObject({ outcome: "found", purpose: "before_replacement" });
    expect(JSON.stringify(observation?.detail)).not.toContain("harbour at dawn");
    // The request is closed: a second try is refused without asking the provider again.
    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters }))).toBe(
      "illegal_transition",
    );
    expect(await observationsOf(caseId)).toHaveLength(1);
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("refuses when the original job is visible but another shop registered it by mistake", async () => {
    // The other shop copied this job's ID into its own registration before anyone here knew it:
    // the job's request is still ours, so paying for a replacement would buy the video twice.
    let jobId = "";
    const { caseId, requestId, finance } = await noJobCaseWithRequest((submittedAt, input) => {
      jobId = sim.state.seedJob({
        provider: "replicate",
        model: MODEL,
        input,
        createdAt: submittedAt.getTime() + 4_000,
      }).id;
    });
    await parkCase(db, producer("mistaken-shop"), parkInput("polling", { model: MODEL, providerJobId: jobId }));
    const holds = await db.hold.count();

    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters }))).toBe(
      "original_job_found",
    );
    expect(await db.hold.count()).toBe(holds);
    const after = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(after).toMatchObject({ stage: "submission_uncertain", state: "parked" });
    const suggestions = await db.reconciliationSuggestion.findMany({ where: { caseId, episode: after.episode } });
    expect(suggestions.map((s) => s.providerJobId)).toEqual([jobId]);
  });

  it("refuses when another shop registered the original by mistake and the provider has dropped its request", async () => {
    let jobId = "";
    const { requestId, finance } = await noJobCaseWithRequest((submittedAt, input) => {
      const createdAt = submittedAt.getTime() + 4_000;
      jobId = sim.state.seedJob({ provider: "replicate", model: MODEL, input, createdAt, outputTtlMs: 0 }).id;
    });
    await parkCase(db, producer("careless-shop"), parkInput("polling", { model: MODEL, providerJobId: jobId }));
    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters }))).toBe(
      "original_job_found",
    );
  });

  it("refuses when a job of the model, created with the submission, no longer shows its request", async () => {
    // Replicate drops an API prediction's input after its retention period: the job cannot be
    // fingerprinted any more, and nothing tells it apart from the original, so nothing is bought.
    let jobId = "";
    const { caseId, requestId, finance } = await noJobCaseWithRequest((submittedAt, input) => {
      const createdAt = submittedAt.getTime() + 4_000;
      jobId = sim.state.seedJob({ provider: "replicate", model: MODEL, input, createdAt, outputTtlMs: 0 }).id;
    });
    const listed = await adapters.replicate.listJobs?.({
      from: new Date(clock.now() - 24 * 60 * MINUTE),
      to: new Date(clock.now()),
    });
    const seen = listed?.kind === "ok" ? listed.jobs.find((j) => j.providerJobId === jobId) : undefined;
    expect(seen?.input).toEqual({});
    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters }))).toBe(
      "original_job_found",
    );

    // A reviewer who saw that job as a suggestion and says again that no job exists sets it aside.
    const reviewer = await makeUser(db, ["reviewer"]);
    await reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "that job is another shop's" });
    const again = await requestReplacement(db, reviewer, caseId, { evidence: "customer still waiting" });
    const authorised = await authorizeReplacement(db, finance, again.requestId, { evidence: "ok" }, { adapters });
    expect(authorised).toMatchObject({ requestId: again.requestId });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: again.requestId } })).toMatchObject({
      status: "authorized",
    });
  });

  it("refuses with provider_check_failed and changes nothing when the provider cannot be asked", async () => {
    const { caseId, requestId, finance } = await noJobCaseWithRequest();
    const cases = await db.case.findUniqueOrThrow({ where: { id: caseId } });

    const outcomes: string[] = [];
    // Down, and a list that could not be read to the end; and no adapters at all.
    sim.state.faults.add({
      match: { provider: "replicate", route: "list" },
      fault: { type: "http_error", status: 503 },
    });
    let before = await countRows(db);
    outcomes.push(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters })));
    expect(await countRows(db)).toEqual(plusObservation(before));
    sim.state.faults.clear();

    sim.state.listPageSize = 1;
    for (let i = 0; i < 30; i++) {
      sim.state.seedJob({
        provider: "replicate",
        model: "someone/else",
        createdAt: (cases.submittedAt ?? cases.openedAt).getTime() + i,
      });
    }
    before = await countRows(db);
    outcomes.push(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" }, { adapters })));
    expect(await countRows(db)).toEqual(plusObservation(before));
    sim.state.listPageSize = 100;

    before = await countRows(db);
    outcomes.push(await refused(authorizeReplacement(db, finance, requestId, { evidence: "ok" })));
    expect(await countRows(db)).toEqual(plusObservation(before));

    expect(outcomes).toEqual(["provider_check_failed", "provider_check_failed", "provider_check_failed"]);
    expect((await observationsOf(caseId)).map((o) => (o.detail as { outcome?: string }).outcome)).toEqual([
      "failed",
      "failed",
      "failed",
    ]);
    const after = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(after.version).toBe(cases.version);
    expect((await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).status).toBe("pending");
  });

  it("authorises as before when the fresh check finds nothing; the evidence says it looked", async () => {
    const { caseId, requestId, submittedAt, finance } = await noJobCaseWithRequest();
    // Someone else's job at the same moment, same model: not the original.
    sim.state.seedJob({
      provider: "replicate",
      model: MODEL,
      input: { prompt: "another customer's request" },
      createdAt: submittedAt.getTime() + 2_000,
    });
    const authorised = await authorizeReplacement(db, finance, requestId, { evidence: "budget ok" }, { adapters });
    expect(authorised.holdId).toBe(`replacement-${requestId}`);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      state: "resolved",
      outcome: "replacement_authorized",
    });
    const [observation] = await observationsOf(caseId);
    expect(observation?.detail).toMatchObject({ outcome: "nothing_found" });
    const closed = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "replacement_authorized" } });
    expect(closed.evidence).toMatchObject({ providerCheck: "nothing_found" });
    expect(sim.state.stats().creates.total).toBe(0);
  });

  it("the API route looks with the worker's adapters: 503 with Retry-After when it cannot, then 200", async () => {
    // The process's adapters are built from the environment on first use, here pointed at this simulator.
    process.env.SIMULATOR_URL = sim.url;
    const { caseId, requestId, finance } = await noJobCaseWithRequest();
    const token = (await createAccessToken(db, finance, { kind: "personal", name: "cli" })).secret;
    const call = () =>
      callRoute(authorizeRoute.POST, { token, params: { id: requestId }, body: { evidence: "budget ok" } });
    sim.state.faults.add({
      match: { provider: "replicate", route: "list" },
      fault: { type: "http_error", status: 500 },
    });
    const down = await call();
    expect(down.status).toBe(503);
    expect(down.json.error?.code).toBe("provider_check_failed");
    expect(down.headers.get("retry-after")).toBe("60");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "parked" });
    sim.state.faults.clear();
    const ok = await call();
    expect(ok.status).toBe(200);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "resolved" });
  });

  it("a failure the provider reported itself needs no second look", async () => {
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    const reviewer = await makeUser(db, ["reviewer"]);
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    const requests = sim.state.requests().length;
    await authorizeReplacement(db, await makeUser(db, ["finance"]), requestId, { evidence: "ok" });
    expect(sim.state.requests().length).toBe(requests);
    expect(await observationsOf(caseId)).toHaveLength(0);
  });
});

describe("when the original job turns up after the replacement was authorised", () => {
  it("flags both attempts, withdraws the unacknowledged replacement, and the producer is told", async () => {
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: "look-shop" });
    const lagged: string[] = [];
    const lateJob = (submittedAt: Date, input: Record<string, unknown>) => {
      const createdAt = submittedAt.getTime() + 3_000;
      lagged.push(
        sim.state.seedJob({
          provider: "replicate",
          model: MODEL,
          input,
          createdAt,
          notFoundForMs: clock.now() - createdAt + 20 * MINUTE,
        }).id,
      );
    };
    const fresh = await noJobCaseWithRequest(lateJob);
    const taken = await noJobCaseWithRequest(lateJob);
    const ctx = { db, adapters };
    for (const { requestId, finance } of [fresh, taken]) {
      await authorizeReplacement(db, finance, requestId, { evidence: "nothing listed" }, { adapters });
    }
    const ack = (id: string) => callRoute(ackRoute.POST, { token: key.secret, params: { id }, method: "POST" });
    expect((await ack(taken.requestId)).status).toBe(200);

    // Still hidden: a look finds nothing and flags nothing; the next look waits its turn.
    expect(await watchReplacedOriginals(ctx, worker(), { max: 50 })).toMatchObject({ flagged: 0 });
    expect(await watchReplacedOriginals(ctx, worker(), { max: 50 })).toMatchObject({ looked: 0 });
    expect(await db.suspectedDuplicate.count({ where: { caseId: { in: [fresh.caseId, taken.caseId] } } })).toBe(0);

    clock.advance(21 * MINUTE);
    const later = new Date(Date.now() + 31 * MINUTE);
    const watched = await watchReplacedOriginals(ctx, worker(), { max: 50, now: later });
    expect(watched.flagged).toBeGreaterThanOrEqual(2);

    const flags = await db.suspectedDuplicate.findMany({
      where: { caseId: { in: [fresh.caseId, taken.caseId] } },
      orderBy: { detectedAt: "asc" },
    });
    expect(flags.map((f) => [f.requestId, f.providerJobId, f.withdrawn])).toEqual([
      [fresh.requestId, lagged[0], true],
      [taken.requestId, lagged[1], false],
    ]);
    const flagged = await db.auditEvent.findFirstOrThrow({
      where: { caseId: fresh.caseId, kind: "suspected_duplicate_flagged" },
    });
    expect(flagged.evidence).toMatchObject({
      providerJobId: lagged[0],
      original: { amountMicros: 100_000, currency: "USD" },
      replacement: { amountMicros: 100_000, currency: "USD" },
    });
    expect(await db.auditEvent.count({ where: { caseId: fresh.caseId, kind: "replacement_withdrawn" } })).toBe(1);
    // Finance sees the pair with both costs; the case page its own.
    const listed = await listSuspectedDuplicates(db, fresh.finance);
    expect(listed.find((i) => i.caseId === fresh.caseId)).toMatchObject({
      providerJobId: lagged[0],
      withdrawn: true,
      original: { amountMicros: 100_000, status: "held" },
      replacement: { amountMicros: 100_000, status: "held", holdId: `replacement-${fresh.requestId}` },
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    expect(await listSuspectedDuplicates(db, reviewer, { caseId: taken.caseId })).toHaveLength(1);
    expect(await refused(listSuspectedDuplicates(db, reviewer))).toBe("forbidden");
    expect(await db.auditEvent.count({ where: { caseId: taken.caseId, kind: "replacement_withdrawn" } })).toBe(0);

    // The producer's list says withdrawn; acknowledging it now is refused.
    const pending = await callRoute(replacementsRoute.GET, { token: key.secret });
    expect((pending.json.items as { id: string }[]).map((i) => i.id)).not.toContain(fresh.requestId);
    const withdrawn = await callRoute(replacementsRoute.GET, { token: key.secret, query: { status: "withdrawn" } });
    expect(withdrawn.json.items).toEqual([
      expect.objectContaining({ id: fresh.requestId, status: "withdrawn", withdrawnReason: expect.any(String) }),
    ]);
    const refusedAck = await ack(fresh.requestId);
    expect(refusedAck.status).toBe(409);
    expect(refusedAck.json.error?.code).toBe("replacement_withdrawn");
    // Its permit is void (decision 036): the list says so, and a report on it is refused by name.
    const [voided] = withdrawn.json.items as { attemptId: string; operationId: string; permit: { token: number } }[];
    expect(voided).toMatchObject({ permit: { status: "withdrawn" } });
    const report = await callRoute(outcomeRoute.POST, {
      token: key.secret,
      params: { attemptId: voided?.attemptId ?? "" },
      method: "POST",
      body: {
        operationId: voided?.operationId,
        token: voided?.permit.token,
        outcome: "accepted",
        providerJobId: "job-sent-anyway",
        evidence: { summary: "sent it anyway", observedAt: new Date().toISOString() },
      },
    });
    expect(report.status).toBe(409);
    expect(report.json.error?.code).toBe("replacement_withdrawn");
    // The acknowledged one was taken by its producer: its permit stays live.
    expect(
      await db.sendPermit.findFirstOrThrow({
        where: { hold: { holdId: `replacement-${taken.requestId}` } },
      }),
    ).toMatchObject({ status: "live" });

    // Flagged once: later looks leave the pair alone; metrics count it.
    const again = await watchReplacedOriginals(ctx, worker(), {
      max: 50,
      now: new Date(later.getTime() + 31 * MINUTE),
    });
    expect(again.flagged).toBe(0);
    const families = await metricsSnapshot(db);
    const family = families.find((f) => f.name === "recovery_suspected_duplicates_total");
    const value = (withdrawn: string) => family?.samples.find((s) => s.labels?.withdrawn === withdrawn)?.value ?? 0;
    expect(value("true")).toBeGreaterThanOrEqual(1);
    expect(value("false")).toBeGreaterThanOrEqual(1);
    expect(sim.state.stats().creates.total).toBe(0);
  });
});

describe("settling period per provider", () => {
  it("an admin's value decides when no_job is accepted; the default comes from the adapter", async () => {
    const admin = await makeUser(db, ["admin"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    expect(await noJobSettlingSeconds(db, "replicate")).toBe(adapters.replicate.capabilities.noJobSettlingSeconds);
    const now = new Date();
    const uncertain = async () =>
      (
        await parkCase(
          db,
          shop,
          parkInput("submission_uncertain", { submittedAt: new Date(now.getTime() - 20 * MINUTE).toISOString() }),
        )
      ).caseId;
    const verdict = (caseId: string) =>
      refused(reconcileCase(db, reviewer, caseId, { verdict: "no_job", evidence: "not listed" }, { now }));

    // Default 15 minutes: 20 minutes after submission is late enough.
    expect(await verdict(await uncertain())).toBe("no error");

    expect(await refused(saveProviderSetting(db, reviewer, { provider: "replicate", noJobSettlingSeconds: 60 }))).toBe(
      "forbidden",
    );
    expect(await refused(saveProviderSetting(db, admin, { provider: "replicate", noJobSettlingSeconds: -1 }))).toBe(
      "invalid_request",
    );
    expect(await refused(saveProviderSetting(db, admin, { provider: "acme", noJobSettlingSeconds: 60 }))).toBe(
      "invalid_request",
    );
    await saveProviderSetting(db, admin, { provider: "replicate", noJobSettlingSeconds: 60 * 60 });
    const tooEarly = await uncertain();
    expect(await verdict(tooEarly)).toBe("too_early");
    expect(await db.case.findUniqueOrThrow({ where: { id: tooEarly } })).toMatchObject({
      stage: "submission_uncertain",
    });
    // Another provider keeps its own default.
    expect(await noJobSettlingSeconds(db, "fal")).toBe(adapters.fal.capabilities.noJobSettlingSeconds);

    await saveProviderSetting(db, admin, { provider: "replicate", noJobSettlingSeconds: 10 * 60 });
    expect(await verdict(tooEarly)).toBe("no error");
    const audits = await db.auditEvent.findMany({
      where: { kind: "provider_setting_updated" },
      orderBy: { id: "asc" },
    });
    expect(audits.map((a) => [a.before, a.after])).toEqual([
      [
        { provider: "replicate", noJobSettlingSeconds: 900 },
        { provider: "replicate", noJobSettlingSeconds: 3600 },
      ],
      [
        { provider: "replicate", noJobSettlingSeconds: 3600 },
        { provider: "replicate", noJobSettlingSeconds: 600 },
      ],
    ]);
    await db.providerSetting.delete({ where: { provider: "replicate" } });
  });
});
