import { afterAll, describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { createPrismaClient } from "@/lib/db/client";
import { env } from "@/lib/env";
import { counterSamples } from "@/lib/metrics/counters";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { noJobSettlingSeconds } from "@/lib/services/admin/provider-settings";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { parkOverduePermits } from "@/lib/services/permit/park-overdue-permits";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { listHoldsSchema } from "@/lib/validation/finance";
import { makeUser, outcomeInput, parkInput, permitInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { runningTotals } from "./helpers/figures-by-scan";
import { tableCounts, withRefusalKept } from "./helpers/table-counts";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// DESIGN 6a: a producer asks for a send permit before each paid create, and reports what came of it.
const { db, url } = openTestDb();
const { db: owner } = openOwnerDb();
const shop = producer("permit-shop");
const wide = createPrismaClient(url, 20);
afterAll(() => wide.$disconnect());

const handler = (key: string) => {
  const route = API_ROUTES.find((r) => routeKey(r) === key);
  if (!route) throw new Error(`${key} is not in the route table`);
  return route.handle;
};

async function permitted(overrides: Parameters<typeof permitInput>[0] = {}) {
  const { operationId, input } = permitInput(overrides);
  const result = await requestPermit(db, shop, operationId, input, env());
  if (result.status !== "permitted") throw new Error(`expected a permit, got ${result.status}`);
  return { operationId, input, token: result.permit.token };
}

const holdOf = (holdId: string) =>
  db.hold.findFirstOrThrow({ where: { producer: shop.name, holdId }, include: { entries: true } });

describe("asking for a send permit", () => {
  it("issues one permit under 20 concurrent identical requests, and reserves its hold once", async () => {
    const { operationId, input } = permitInput();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => requestPermit(wide, shop, operationId, input, env())),
    );
    const created = answers.filter((a) => a.status === "permitted" && a.created);
    expect(created).toHaveLength(1);
    expect(answers.every((a) => a.status === "permitted" && a.permit.token === 1)).toBe(true);
    const hold = await holdOf(input.hold.holdId);
    expect(hold).toMatchObject({ status: "held", amountMicros: 100_000n, caseId: null });
    expect(hold.entries.map((e) => e.kind)).toEqual(["reserve"]);
    expect(await db.sendPermit.count({ where: { operation: { operationId } } })).toBe(1);
  });

  it("gives one of 20 concurrent attempts of an operation the permit and refuses the rest", async () => {
    const { operationId, input } = permitInput();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        requestPermit(
          wide,
          shop,
          operationId,
          {
            ...input,
            attemptId: `${operationId}-a${i}`,
            hold: { ...input.hold, holdId: `${input.hold.holdId}-${i}` },
          },
          env(),
        ),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "conflicting_registration" });
    }
    expect(await db.hold.count({ where: { attempt: { operation: { operationId } } } })).toBe(1);
  });

  it("answers the identical request with the same permit (200) and refuses other facts (409, nothing written)", async () => {
    const { operationId, input } = permitInput();
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: shop.name });
    const post = handler("POST /api/v1/operations/{operationId}/attempts");
    const first = await callRoute(post, { token: key.secret, params: { operationId }, body: input });
    expect(first.status).toBe(201);
    const again = await callRoute(post, { token: key.secret, params: { operationId }, body: input });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ...first.json, created: false });
    const before = await tableCounts(db);
    const other = await callRoute(post, {
      token: key.secret,
      params: { operationId },
      body: { ...input, hold: { ...input.hold, amountMicros: 200_000 } },
    });
    expect(other.status).toBe(409);
    expect(other.json.error?.message).toContain("hold.amountMicros");
    const past = await callRoute(post, {
      token: key.secret,
      params: { operationId: `${operationId}-x` },
      body: { ...input, sendDeadline: new Date(Date.now() - 1000).toISOString() },
    });
    expect(past.status).toBe(400);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("never permits a second send once the permit was used", async () => {
    const { operationId, input, token } = await permitted();
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", `job-${operationId}`));
    const retry = {
      ...input,
      attemptId: `${operationId}-a2`,
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
    };
    expect(await requestPermit(db, shop, operationId, retry, env())).toEqual({
      status: "in_flight",
      operationId,
      providerJobId: `job-${operationId}`,
    });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "completed"));
    expect(await requestPermit(db, shop, operationId, retry, env())).toMatchObject({ status: "done" });
  });
});

describe("reporting a send's outcome", () => {
  it("accepted then completed: the job is the attempt's and the hold is settled for it", async () => {
    const { operationId, input, token } = await permitted();
    const job = `job-${operationId}`;
    expect(
      await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", job)),
    ).toMatchObject({
      status: "accepted",
      providerJobId: job,
      changed: true,
    });
    const repeat = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", job));
    expect(repeat.changed).toBe(false);
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", "another-job")),
    ).rejects.toMatchObject({ code: "conflicting_registration" });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "completed", job));
    const hold = await holdOf(input.hold.holdId);
    expect(hold).toMatchObject({ status: "settled", settledMicros: 100_000n, releasedMicros: 0n });
    expect(hold.entries.map((e) => e.kind).sort()).toEqual(["reserve", "settle"]);
    expect(await db.attempt.findFirst({ where: { providerJobId: job } })).toMatchObject({ attemptId: input.attemptId });
  });

  it("a job another operation owns is refused (rule 11) and nothing changes", async () => {
    const other = parkInput("polling");
    await parkCase(db, shop, other);
    const { operationId, input, token } = await permitted();
    const before = await tableCounts(db);
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", other.providerJobId)),
    ).rejects.toMatchObject({ code: "provider_job_in_use" });
    expect(await tableCounts(db)).toEqual(withRefusalKept(before));
  });

  it("rejected: the hold waits for finance with the provider's answer, and a new attempt may be sent", async () => {
    const { operationId, input, token } = await permitted();
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "rejected"));
    const finance = await makeUser(db, ["finance"]);
    const listed = await listHolds(db, finance, listHoldsSchema.parse({ status: "held", limit: 200 }));
    const row = listed.items.find((h) => h.holdId === input.hold.holdId);
    expect(row).toMatchObject({
      caseId: null,
      stage: null,
      permitStatus: "rejected",
      needsDecision: true,
      operationId,
    });
    const next = {
      ...input,
      attemptId: `${operationId}-a2`,
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
    };
    const second = await requestPermit(db, shop, operationId, next, env());
    expect(second).toMatchObject({ status: "permitted", permit: { token: 2 } });
    // The first permit is superseded: its token no longer speaks for the operation.
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "rejected")),
    ).rejects.toMatchObject({ code: "stale_fencing_token" });
    const hold = await holdOf(input.hold.holdId);
    await resolveHold(db, finance, hold.id, {
      kind: "release",
      note: "provider refused",
      evidence: "HTTP 422 at create",
    });
    expect(await holdOf(input.hold.holdId)).toMatchObject({ status: "released", releasedMicros: 100_000n });
  });

  it("unknown: the send parks as an uncertain case on the permit's own hold; a late job attaches to it", async () => {
    const { operationId, input, token } = await permitted();
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "unknown"));
    expect(parked).toMatchObject({ status: "uncertain" });
    const kase = await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } });
    expect(kase).toMatchObject({ stage: "submission_uncertain", state: "parked", heldMicros: 100_000n });
    expect(await holdOf(input.hold.holdId)).toMatchObject({ caseId: kase.id, status: "held" });
    expect(await requestPermit(db, shop, operationId, input, env())).toEqual({
      status: "uncertain",
      operationId,
      caseId: kase.id,
    });
    const late = await reportOutcome(
      db,
      shop,
      input.attemptId,
      outcomeInput(operationId, token, "accepted", `job-${operationId}`),
    );
    expect(late.caseId).toBe(kase.id);
    expect(await db.case.findUniqueOrThrow({ where: { id: kase.id } })).toMatchObject({
      stage: "polling",
      state: "parked",
      providerJobId: `job-${operationId}`,
    });
    // Attaching approves nothing (rule 2).
    expect(await db.recoveryAction.count({ where: { caseId: kase.id } })).toBe(0);
  });

  it("failed, and unknown after acceptance, park cases that know the job", async () => {
    const failed = await permitted();
    const job = `job-${failed.operationId}`;
    await reportOutcome(
      db,
      shop,
      failed.input.attemptId,
      outcomeInput(failed.operationId, failed.token, "accepted", job),
    );
    const gone = await reportOutcome(
      db,
      shop,
      failed.input.attemptId,
      outcomeInput(failed.operationId, failed.token, "failed"),
    );
    expect(await db.case.findUniqueOrThrow({ where: { id: gone.caseId ?? "" } })).toMatchObject({
      stage: "generation_failed",
      providerJobId: job,
    });
    const lost = await permitted();
    await reportOutcome(
      db,
      shop,
      lost.input.attemptId,
      outcomeInput(lost.operationId, lost.token, "accepted", `job-${lost.operationId}`),
    );
    const polled = await reportOutcome(
      db,
      shop,
      lost.input.attemptId,
      outcomeInput(lost.operationId, lost.token, "unknown"),
    );
    expect(await db.case.findUniqueOrThrow({ where: { id: polled.caseId ?? "" } })).toMatchObject({
      stage: "polling",
      providerJobId: `job-${lost.operationId}`,
    });
  });

  it("refuses a token that is not the permit's, a report that goes backwards, and an unknown attempt", async () => {
    const { operationId, input, token } = await permitted();
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token + 1, "unknown")),
    ).rejects.toMatchObject({ code: "stale_fencing_token" });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", `job-${operationId}`));
    await expect(
      reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "rejected")),
    ).rejects.toMatchObject({ code: "illegal_transition" });
    await expect(
      reportOutcome(db, shop, "no-such-attempt", outcomeInput(operationId, token, "unknown")),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      reportOutcome(db, producer("another-shop"), input.attemptId, outcomeInput(operationId, token, "unknown")),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("an operation sent under a permit cannot also be parked directly", async () => {
    const { operationId, input } = await permitted();
    const direct = parkInput("submission_uncertain", { operationId, attemptId: input.attemptId, hold: input.hold });
    await expect(parkCase(db, shop, direct)).rejects.toMatchObject({ code: "conflicting_registration" });
  });
});

describe("two producers", () => {
  it("each get their own permit for one operation ID, and one provider job belongs to one of them", async () => {
    const other = producer("permit-shop-two");
    const { operationId, input } = permitInput();
    const first = await requestPermit(db, shop, operationId, input, env());
    const second = await requestPermit(
      db,
      other,
      operationId,
      {
        ...input,
        hold: { ...input.hold, holdId: `${input.hold.holdId}-b` },
      },
      env(),
    );
    expect([first.status, second.status]).toEqual(["permitted", "permitted"]);
    const job = `job-shared-${operationId}`;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "accepted", job));
    const before = await tableCounts(db);
    await expect(
      reportOutcome(db, other, input.attemptId, outcomeInput(operationId, 1, "accepted", job)),
    ).rejects.toMatchObject({ code: "provider_job_in_use" });
    expect(await tableCounts(db)).toEqual(withRefusalKept(before));
    // The other shop's send parks without the job (its uncertain case is its own to reconcile).
    const parked = await reportOutcome(db, other, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    expect(await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } })).toMatchObject({
      producer: other.name,
      stage: "submission_uncertain",
      providerJobId: null,
    });
  });
});

describe("a second episode", () => {
  it("reopens a permit-born case with a new attempt and hold, and the permit's hold stays accounted", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const { operationId, input, token } = await permitted();
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", `job-${operationId}`));
    const failed = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "failed"));
    const caseId = failed.caseId ?? "";
    await acceptFailure(db, reviewer, caseId, { evidence: "the provider reports a content failure" });
    const again = parkInput("submission_uncertain", {
      operationId,
      attemptId: `${operationId}-a2`,
      hold: { holdId: `${input.hold.holdId}-2`, amountMicros: 100_000, currency: "USD" },
    });
    const reopened = await parkCase(db, shop, again);
    expect(reopened).toMatchObject({ caseId, created: true, stage: "submission_uncertain", state: "parked" });
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ episode: 2 });
    expect(await holdOf(input.hold.holdId)).toMatchObject({ status: "held", caseId });
    expect(await holdOf(again.hold.holdId)).toMatchObject({ status: "held", caseId });
    // The operation's permit was used: asking again never permits a second send of it.
    expect((await requestPermit(db, shop, operationId, input, env())).status).not.toBe("permitted");
  });
});

describe("the deadline sweep", () => {
  it("parks a permit whose deadline passed with no report, once, hold kept and counted", async () => {
    const { operationId, input, token } = await permitted();
    await owner.sendPermit.updateMany({
      where: { operation: { operationId } },
      data: { sendDeadline: new Date(Date.now() - 1000) },
    });
    const counted = async () =>
      (await counterSamples()).find((s) => s.name === "recovery_permits_overdue_total")?.value ?? 0;
    const before = await counted();
    const sweeps = await Promise.all([parkOverduePermits(wide, worker()), parkOverduePermits(wide, worker())]);
    expect(sweeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(await counted()).toBe(before + sweeps.reduce((a, b) => a + b, 0));
    const permit = await db.sendPermit.findFirstOrThrow({
      where: { operation: { operationId } },
      include: { case: true },
    });
    expect(permit.status).toBe("uncertain");
    expect(permit.case).toMatchObject({ stage: "submission_uncertain", state: "parked", heldMicros: 100_000n });
    expect(JSON.stringify(permit.case?.lastEvidence)).toContain("no outcome reported by the deadline");
    expect(await db.case.count({ where: { operationId, producer: shop.name } })).toBe(1);
    expect(await holdOf(input.hold.holdId)).toMatchObject({ status: "held", caseId: permit.caseRef });
    // Sent after the permit, before its deadline: nothing is overdue until the settling period after it.
    const settling = await noJobSettlingSeconds(db, permit.case?.provider ?? "");
    expect(permit.case).toMatchObject({
      submittedAt: permit.createdAt,
      retryDeadline: new Date(permit.sendDeadline.getTime() + settling * 1000),
    });
    const events = await db.auditEvent.findMany({ where: { caseId: permit.caseRef }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["parked", "hold_reserved"]);
    expect(events[1]?.after).toMatchObject({ holdId: input.hold.holdId, amountMicros: 100_000 });
    const reviewer = await makeUser(db, ["reviewer"]);
    const noJob = { verdict: "no_job" as const, evidence: "nothing listed at the provider" };
    await expect(reconcileCase(db, reviewer, permit.caseRef ?? "", noJob)).rejects.toMatchObject({ code: "too_early" });
    // The producer that crashed after sending comes back: it is told, and may not send again.
    expect(await requestPermit(db, shop, operationId, input, env())).toMatchObject({ status: "uncertain" });
    const late = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "unknown"));
    expect(late.changed).toBe(false);
  });
});

describe("an accepted send whose producer goes silent", () => {
  it("is parked as a job to check after a day without a completion, hold kept", async () => {
    const { operationId, input, token } = await permitted();
    const job = `job-${operationId}`;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", job));
    expect(await parkOverduePermits(db, worker())).toBe(0);
    const operator = await makeUser(db, ["operator"]);
    const inFlight = async () =>
      (await overviewStats(db, operator, { alertWindowMinutes: 60, alertThreshold: 1000 })).inFlight.accepted;
    const accepted = await inFlight();
    await owner.sendPermit.updateMany({
      where: { operation: { operationId } },
      data: { reportedAt: new Date(Date.now() - 25 * 3600_000) },
    });
    expect(await parkOverduePermits(db, worker())).toBe(1);
    // A case now, no longer a send in flight (its money is counted once, on the case).
    expect(await inFlight()).toBe(accepted - 1);
    const permit = await db.sendPermit.findFirstOrThrow({
      where: { operation: { operationId } },
      include: { case: true },
    });
    expect(permit.case).toMatchObject({ stage: "polling", state: "parked", providerJobId: job, heldMicros: 100_000n });
    expect(await holdOf(input.hold.holdId)).toMatchObject({ status: "held", caseId: permit.caseRef });
    expect(await parkOverduePermits(db, worker())).toBe(0);
    // Parked, its case decides: another silent day, a late report or a completion move nothing.
    await owner.sendPermit.updateMany({
      where: { operation: { operationId } },
      data: { reportedAt: new Date(Date.now() - 49 * 3600_000) },
    });
    expect(await parkOverduePermits(db, worker())).toBe(0);
    for (const outcome of ["unknown", "completed"] as const) {
      const late = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, outcome, job));
      expect(late).toMatchObject({ changed: false, caseId: permit.caseRef, status: "accepted" });
    }
    expect(await holdOf(input.hold.holdId)).toMatchObject({ status: "held", caseId: permit.caseRef });
    expect(await db.case.count({ where: { operationId } })).toBe(1);
  });
});

describe("money on permits", () => {
  it("shows sends in flight on the overview (count, age, money), not as cases", async () => {
    const operator = await makeUser(db, ["operator"]);
    const options = { alertWindowMinutes: 60, alertThreshold: 1000 };
    const before = (await overviewStats(db, operator, options)).inFlight;
    const openBefore = (await overviewStats(db, operator, options)).stages.reduce((n, s) => n + s.open, 0);
    const { operationId, input, token } = await permitted({
      hold: { holdId: `h-${Date.now()}`, amountMicros: 2_500_000, currency: "EUR" },
    });
    const during = (await overviewStats(db, operator, options)).inFlight;
    expect(during.sending).toBe(before.sending + 1);
    expect(during.oldestAgeSeconds).not.toBeNull();
    // Of the permit's producer only, and not another producer's (decision 034).
    const ofProducer = async (name: string) =>
      (await overviewStats(db, operator, { ...options, producers: [name] })).inFlight.sending;
    expect(await ofProducer(shop.name)).toBe(during.sending);
    expect(await ofProducer("another-shop")).toBe(0);
    const eur = (figures: typeof before) => figures.held.find((h) => h.currency === "EUR")?.micros ?? 0;
    expect(eur(during)).toBe(String(BigInt(eur(before)) + 2_500_000n));
    expect((await overviewStats(db, operator, options)).stages.reduce((n, s) => n + s.open, 0)).toBe(openBefore);
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "accepted", `job-${operationId}`));
    expect((await overviewStats(db, operator, options)).inFlight.accepted).toBe(before.accepted + 1);
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, token, "completed"));
    expect(eur((await overviewStats(db, operator, options)).inFlight)).toBe(eur(before));
  });

  it("keeps the running totals equal to what stat_rebuild() computes from the rows", async () => {
    const finance = await makeUser(db, ["finance"]);
    const rejected = await permitted();
    await reportOutcome(
      db,
      shop,
      rejected.input.attemptId,
      outcomeInput(rejected.operationId, rejected.token, "rejected"),
    );
    const hold = await holdOf(rejected.input.hold.holdId);
    await resolveHold(db, finance, hold.id, { kind: "release", note: "no charge", evidence: "provider said 422" });
    await permitted();
    const kept = await runningTotals(db);
    await owner.$executeRaw`SELECT stat_rebuild()`;
    expect(await runningTotals(db)).toEqual(kept);
  });
});
