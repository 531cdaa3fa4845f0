import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordAudit } from "@/lib/audit/writer";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { ANOTHER_PRODUCERS_OPERATION } from "@/lib/domain/named-cases";
import { env } from "@/lib/env";
import { verifyEvidenceText } from "@/lib/evidence/packet-signature";
import type { UserActor } from "@/lib/services/access/actor";
import { listAssignableUsers } from "@/lib/services/admin/list-assignable-users";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { SUGGESTION_AUDIT_KIND, suggestReconciliations } from "@/lib/services/case/suggest-reconciliations";
import { exportCaseEvidence } from "@/lib/services/evidence/export-evidence";
import { getNeedsDecision } from "@/lib/services/finance/finance-needs-decision";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { setUserProducersSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { makeUser, parkInput, producer, registerProducers, worker } from "./fixtures";
import { testWorkerContext } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 055: every figure and every piece of evidence a person limited to some producers reads
// is of those producers only. Two shops on one deployment (and one provider account); the person
// sees shop A ("mine"); every shop B figure is set up so that it would show if it leaked.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const run = Date.now().toString(36);
const mine = producer(`reads-mine-${run}`);
const theirs = producer(`reads-theirs-${run}`);
const MODEL = "minimax/video-01";
let agency: UserActor;
let everyone: UserActor;
let sim: RunningSimulator;
let ctx: WorkerContext;

beforeAll(async () => {
  const admin = await makeUser(db, ["admin"]);
  const person = await makeUser(db, ["operator", "reviewer", "finance"]);
  await registerProducers(db, mine, theirs);
  await setUserProducers(
    db,
    admin,
    parseInput(setUserProducersSchema, { userId: person.userId, producers: [mine.name] }),
  );
  agency = { ...person, producers: [mine.name] };
  everyone = await makeUser(db, ["operator", "reviewer", "finance"]);
  sim = await startSimulator({ port: 0, timings: { queuedMs: 0, runningMs: 0, outputBytes: 1024 } });
  ctx = await testWorkerContext(db, sim.url);
});
afterAll(() => sim.stop());

const overview = (actor: UserActor, producers?: string[]) =>
  overviewStats(db, actor, { alertWindowMinutes: 60, alertThreshold: 1_000, ...(producers ? { producers } : {}) });

describe("Finance's needs-a-decision banner", () => {
  it("counts only the reader's producers, also when the URL asks for another one", async () => {
    const { caseId } = await parkCase(db, theirs, parkInput("generation_failed", { operationId: `nd-${run}` }));
    await acceptFailure(db, everyone, caseId, { evidence: "the provider says it failed" });

    const seenByAll = await getNeedsDecision(db, everyone, [theirs.name]);
    expect(seenByAll).toEqual([{ currency: "USD", count: 1, micros: "100000" }]);
    expect(await getNeedsDecision(db, agency, [theirs.name])).toEqual([]);
    expect(await getNeedsDecision(db, agency)).toEqual([]);
    const viewer = await makeUser(db, ["viewer"]);
    await expect(getNeedsDecision(db, viewer)).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("the overview's review and worker figures", () => {
  it("leaves out another producer's decisions, lease rescues, delivery failures and poison actions", async () => {
    const polling = await parkCase(db, theirs, parkInput("polling", { operationId: `ov-${run}` }));
    await approveCase(db, everyone, polling.caseId, { action: "resume_poll", evidence: "poll again" });
    const kase = await db.case.findUniqueOrThrow({ where: { id: polling.caseId } });
    // The rows the worker writes on shop B's case, through the one audit writer.
    for (const [kind, before] of [
      ["lease_rescued", { state: "claimed" }],
      ["recovery_unresolved", { stage: "delivery", state: "claimed" }],
      ["poison_parked", { state: "ready" }],
    ] as const) {
      await recordAudit(db, { actor: worker(), kind, caseId: kase.id, episode: kase.episode, before });
    }

    const all = await overview(everyone);
    expect(all.reviewLatency.decisions).toBeGreaterThanOrEqual(1);
    expect([all.leaseRescues24h, all.deliveryFailures24h, all.poisonParked24h]).toEqual([1, 1, 1]);
    const theirsForAll = await overview(everyone, [theirs.name]);
    expect(theirsForAll.reviewLatency.decisions).toBeGreaterThanOrEqual(1);
    expect([theirsForAll.leaseRescues24h, theirsForAll.deliveryFailures24h, theirsForAll.poisonParked24h]).toEqual([
      1, 1, 1,
    ]);

    for (const stats of [await overview(agency), await overview(agency, [theirs.name])]) {
      expect(stats.reviewLatency).toEqual({ p50Seconds: null, p90Seconds: null, decisions: 0 });
      expect([stats.leaseRescues24h, stats.deliveryFailures24h, stats.poisonParked24h]).toEqual([0, 0, 0]);
    }
  });

  it("lists no other producer's reviewers to a person who asks for that producer", async () => {
    const admin = await makeUser(db, ["admin"]);
    const theirReviewer = await makeUser(db, ["reviewer"]);
    await setUserProducers(
      db,
      admin,
      parseInput(setUserProducersSchema, { userId: theirReviewer.userId, producers: [theirs.name] }),
    );
    expect((await listAssignableUsers(db, everyone, theirs.name)).map((u) => u.id)).toContain(theirReviewer.userId);
    expect(await listAssignableUsers(db, agency, theirs.name)).toEqual([]);
  });
});

describe("a search's attribution of a job to another producer's operation", () => {
  it("names neither their case, their job nor their operation: stored, on the case page, the API or a packet", async () => {
    const submittedAt = new Date(Date.now() - 3 * 3_600_000);
    const input = { prompt: `a lighthouse at dusk ${run}`, seconds: 5 };
    const job = sim.state.seedJob({
      provider: "replicate",
      model: MODEL,
      input,
      createdAt: submittedAt.getTime() + 1_000,
    });
    const ownJob = sim.state.seedJob({
      provider: "replicate",
      model: MODEL,
      input,
      createdAt: submittedAt.getTime() + 2_000,
    });
    const theirOperation = `their-op-${run}`;
    const owner = await parkCase(
      db,
      theirs,
      parkInput("polling", { operationId: theirOperation, provider: "replicate", model: MODEL, providerJobId: job.id }),
    );
    const sibling = await parkCase(
      db,
      mine,
      parkInput("polling", { provider: "replicate", model: MODEL, providerJobId: ownJob.id }),
    );
    const { caseId } = await parkCase(
      db,
      mine,
      parkInput("submission_uncertain", {
        provider: "replicate",
        model: MODEL,
        requestFingerprint: requestFingerprint(input),
        submittedAt: submittedAt.toISOString(),
      }),
    );

    await suggestReconciliations(ctx, worker(), { max: 50 });
    const [search] = await db.auditEvent.findMany({ where: { caseId, kind: SUGGESTION_AUDIT_KIND } });
    const stored = (search?.evidence ?? {}) as Record<string, unknown>;
    expect(stored.alreadyAttributed).toBe(2);
    // Stored as such: this shop's own sibling is named, the other shop's operation is not.
    expect(stored.attributedTo).toEqual(
      expect.arrayContaining([
        { owner: ANOTHER_PRODUCERS_OPERATION },
        { providerJobId: ownJob.id, caseId: sibling.caseId },
      ]),
    );

    // A search recorded before the worker narrowed its own evidence is narrowed when read.
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    await recordAudit(db, {
      actor: worker(),
      kind: SUGGESTION_AUDIT_KIND,
      caseId,
      episode: kase.episode,
      evidence: {
        count: 0,
        alreadyAttributed: 2,
        attributedTo: [
          { providerJobId: job.id, caseId: owner.caseId },
          { providerJobId: job.id, caseId: null },
          { providerJobId: ownJob.id, caseId: sibling.caseId },
        ],
        conclusive: true,
      },
    });

    const theirIds = [String(owner.caseId), job.id, theirOperation];
    const page = await getCase(db, agency, caseId, env());
    const pageText = JSON.stringify(page.timeline);
    for (const id of theirIds) expect(pageText).not.toContain(id);
    expect(pageText).toContain(ownJob.id);
    expect(pageText).toContain(ANOTHER_PRODUCERS_OPERATION);

    const packet = await exportCaseEvidence(db, agency, caseId, env());
    for (const id of theirIds) expect(packet.text).not.toContain(id);
    expect(packet.text).toContain(String(sibling.caseId));
    // The chain still verifies: an event's hash covers its evidence's recorded digest.
    const verified = verifyEvidenceText(packet.text);
    expect(verified).toMatchObject({ valid: true, timeline: { intact: true } });
  });

  it("shows a suggested job since recorded for another producer without its ID", async () => {
    const owned = parkInput("delivery", { operationId: `sj-${run}` });
    await parkCase(db, theirs, owned);
    const { caseId } = await parkCase(db, mine, parkInput("submission_uncertain"));
    await db.reconciliationSuggestion.create({
      data: {
        caseId,
        episode: 1,
        providerJobId: owned.providerJobId ?? "",
        confidence: 90,
        matched: ["model"],
        providerStatus: "succeeded",
        jobCreatedAt: new Date(),
      },
    });
    const [seen] = (await getCase(db, agency, caseId, env())).suggestions;
    expect(seen).toMatchObject({ ownedElsewhere: true, ownerCaseId: null, providerJobId: null });
    const [seenByAll] = (await getCase(db, everyone, caseId, env())).suggestions;
    expect(seenByAll).toMatchObject({ ownedElsewhere: true, providerJobId: owned.providerJobId });
  });
});
