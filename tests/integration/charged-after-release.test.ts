import { describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { alertFigures } from "@/lib/services/alert/alert-figures";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { exportFinanceCsv } from "@/lib/services/finance/export-ledger";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { acknowledgeLateCharge } from "@/lib/services/hold/acknowledge-late-charge";
import { listHolds } from "@/lib/services/hold/list-holds";
import { listOpenLateCharges } from "@/lib/services/hold/list-late-charges";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { metricsSnapshot } from "@/lib/services/overview/metrics-snapshot";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { exportQuerySchema } from "@/lib/validation/finance";
import { makeUser, outcomeInput, parkInput, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { providerRecovery } from "./helpers/provider-recovery";
import { openTestDb } from "./setup/test-db";

// DESIGN rule 18: every paid video has a charge record, whatever finance did with its hold.
const { db } = openTestDb();
const shop = producer("late-charge-shop");
const h = providerRecovery(db, {
  provider: "replicate",
  model: "omni-flash-720p",
  evidence: "the job id is in the provider's dashboard",
});

const route = (key: string) => {
  const found = API_ROUTES.find((r) => routeKey(r) === key);
  if (!found) throw new Error(`${key} is not in the route table`);
  return found.handle;
};
const writeOffRoute = route("POST /api/v1/holds/{id}/write-off");
const releaseRoute = route("POST /api/v1/holds/{id}/release");
const acknowledgeRoute = route("POST /api/v1/holds/{id}/late-charge/acknowledge");

const ledgerOf = (holdRef: string) =>
  db.ledgerEntry.findMany({
    where: { holdRef },
    orderBy: { createdAt: "asc" },
    select: { kind: true, amountMicros: true, flagged: true },
  });

/** The hold's ledger after its release holds one flagged late charge, and its case's timeline says so. */
async function expectChargedAfterRelease(holdRef: string, caseId: string) {
  expect((await ledgerOf(holdRef)).map((e) => [e.kind, e.flagged])).toEqual([
    ["reserve", false],
    ["release", false],
    ["late_charge", true],
  ]);
  const kinds = (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => e.kind);
  expect(kinds).toContain("charged_after_release");
}

async function financeToken() {
  const finance = await makeUser(db, ["finance"]);
  return { finance, token: (await createAccessToken(db, finance, { kind: "personal", name: "late" })).secret };
}

/** A permit whose send is in flight: issued and accepted, with no outcome yet. */
async function inFlight(who = shop) {
  const { operationId, input } = permitInput();
  const answer = await requestPermit(db, who, operationId, input, env());
  if (answer.status !== "permitted") throw new Error(`expected a permit, got ${answer.status}`);
  const job = `job-${operationId}`;
  await reportOutcome(db, who, input.attemptId, outcomeInput(operationId, 1, "accepted", job));
  const hold = await db.hold.findFirstOrThrow({ where: { producer: who.name, holdId: input.hold.holdId } });
  return { operationId, input, job, hold };
}

describe("a release while the send's outcome is unknown", () => {
  it("is refused (409 send_outcome_unknown) for a send in flight, and nothing is written", async () => {
    const { token } = await financeToken();
    const { hold } = await inFlight();
    const answer = await callRoute(releaseRoute, {
      token,
      params: { id: hold.id },
      body: { note: "no charge on the invoice", evidence: "usage export, 0 s" },
    });
    expect(answer.status).toBe(409);
    expect(answer.json.error?.code).toBe("send_outcome_unknown");
    expect(answer.json.error?.message).toMatch(/in flight.*write it off/);
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
    expect((await ledgerOf(hold.id)).map((e) => e.kind)).toEqual(["reserve"]);
  });

  it("is refused for a parked job check, and allowed as a write-off with a reason, audited as one", async () => {
    const { finance, token } = await financeToken();
    const { caseId } = await h.approvedCase("polling", { outcome: "stuck", queuedMs: 3_600_000 });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await expect(
      resolveHold(db, finance, hold.id, { kind: "release", note: "no charge", evidence: "usage" }),
    ).rejects.toMatchObject({ code: "send_outcome_unknown", message: expect.stringMatching(/still being checked/) });
    const answer = await callRoute(writeOffRoute, {
      token,
      params: { id: hold.id },
      body: { reason: "the customer cancelled; we absorb the risk", evidence: "ticket 88" },
    });
    expect(answer.status).toBe(200);
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({
      status: "released",
      writtenOff: true,
      decisionNote: "the customer cancelled; we absorb the risk",
    });
    const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "hold_written_off" } });
    expect(audit).toMatchObject({ actorLabel: finance.email, evidence: { evidence: "ticket 88" } });
  });

  it("is refused to a write-off without a reason (400), and to a person limited to another producer (404)", async () => {
    const { token } = await financeToken();
    const { hold } = await inFlight();
    const bare = await callRoute(writeOffRoute, { token, params: { id: hold.id }, body: { evidence: "ticket 1" } });
    expect(bare.status).toBe(400);
    const scoped = await makeUser(db, ["finance"]);
    await db.user.update({ where: { id: scoped.userId }, data: { producerScope: ["another-shop"] } });
    await expect(
      resolveHold(db, { ...scoped, producers: ["another-shop"] }, hold.id, {
        kind: "write_off",
        note: "not mine",
        evidence: "none",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
  });
});

describe("a hold written off while its send was in flight", () => {
  it("joins the case its send parks as, decided: nothing counted as held, the decision on its timeline", async () => {
    const { finance } = await financeToken();
    const { operationId, input, hold } = await inFlight();
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "the shop went quiet", evidence: "ticket 9" });
    // The shop's answer was lost after all: it reports unknown, and the permit parks as a case.
    const parked = await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "unknown"));
    const kase = await db.case.findUniqueOrThrow({ where: { id: parked.caseId ?? "" } });
    expect(kase.heldMicros).toBe(0n);
    const decided = await db.auditEvent.findFirstOrThrow({
      where: { caseId: kase.id, kind: "hold_decided_before_case" },
    });
    expect(decided).toMatchObject({
      before: { holdId: input.hold.holdId },
      after: { status: "released", writtenOff: true },
    });
  });
});

describe("a hold whose job is known to be completed", () => {
  it("is neither released nor written off (409 send_completed) while its case delivers, and settles", async () => {
    const { finance } = await financeToken();
    const { caseId } = await h.approvedCase("delivery", { outcome: "succeeded" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    for (const kind of ["release", "write_off"] as const) {
      await expect(
        resolveHold(db, finance, hold.id, { kind, note: "no charge", evidence: "usage" }),
      ).rejects.toMatchObject({ code: "send_completed", message: expect.stringMatching(/settle it with the charge/) });
    }
    expect((await ledgerOf(hold.id)).map((e) => e.kind)).toEqual(["reserve"]);
    // Finance's list says so before anyone tries: it offers the settle, not the release.
    const listed = await listHolds(db, finance, { status: "held", limit: 200 });
    expect(listed.items.find((item) => item.id === hold.id)).toMatchObject({
      completed: expect.stringMatching(/settle it with the charge/),
      outcomeUnknown: null,
    });
    await resolveHold(db, finance, hold.id, {
      kind: "settle",
      chargeMicros: Number(hold.amountMicros),
      note: "invoice",
      evidence: "line 4",
    });
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "settled" });
  });
});

describe("a completion proved after the hold was written off books a flagged charge", () => {
  it("through the producer's completion report", async () => {
    const { finance } = await financeToken();
    const { operationId, input, job, hold } = await inFlight();
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "lost track", evidence: "none" });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "completed", job));
    expect(await ledgerOf(hold.id)).toEqual([
      { kind: "reserve", amountMicros: 100_000n, flagged: false },
      { kind: "release", amountMicros: 100_000n, flagged: false },
      { kind: "late_charge", amountMicros: 100_000n, flagged: true },
    ]);
    expect((await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).lateChargedAt).not.toBeNull();
    const listed = await listOpenLateCharges(db, finance);
    expect(listed.find((i) => i.id === hold.id)).toMatchObject({ writtenOff: true, chargedMicros: 100_000 });
  });

  it("when the producer parks an authorised replacement it sent at delivery: the job completed", async () => {
    const { finance } = await financeToken();
    const reviewer = await makeUser(db, ["reviewer"]);
    const first = parkInput("generation_failed");
    const { caseId } = await parkCase(db, shop, first);
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter; retry" });
    const authorized = await authorizeReplacement(db, finance, requestId, { evidence: "budget ok" });
    const hold = await db.hold.findFirstOrThrow({ where: { producer: shop.name, holdId: authorized.holdId } });
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "replacement never sent?", evidence: "none" });
    // It was sent after all, and its outputs could not be fetched: the shop parks it at delivery.
    await parkCase(db, shop, {
      ...first,
      attemptId: authorized.attemptId,
      stage: "delivery",
      providerJobId: `job-${authorized.attemptId}`,
      hold: { holdId: authorized.holdId, amountMicros: 100_000, currency: "USD" },
    });
    await expectChargedAfterRelease(hold.id, caseId);
  });

  it("through the worker's status check, with a case flag on its page until finance decides", async () => {
    const { finance, token } = await financeToken();
    const { caseId } = await h.approvedCase("polling", { outcome: "succeeded" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "gave up on it", evidence: "ticket 7" });
    await h.outcomeOf(caseId);
    await expectChargedAfterRelease(hold.id, caseId);
    expect((await getCase(db, finance, caseId, env())).chargedAfterRelease).toBe(true);
    const answer = await callRoute(acknowledgeRoute, {
      token,
      params: { id: hold.id },
      body: { note: "recovered from the customer" },
    });
    expect(answer.status).toBe(200);
    expect((await getCase(db, finance, caseId, env())).chargedAfterRelease).toBe(false);
    expect(await db.auditEvent.count({ where: { caseId, kind: "late_charge_acknowledged" } })).toBe(1);
    // Decided once: a second decision is a conflict, and the charge itself stays in the ledger.
    await expect(acknowledgeLateCharge(db, finance, hold.id, { note: "again" })).rejects.toMatchObject({
      code: "conflict",
    });
    expect((await ledgerOf(hold.id)).map((e) => e.kind)).toContain("late_charge");
  });

  it("is counted in the overview, the metrics and the alert rule's figures until decided", async () => {
    const { finance } = await financeToken();
    const before = await alertFigures(db, { kind: "charged_after_release", windowMinutes: 60 }, new Date());
    const { operationId, input, job, hold } = await inFlight();
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "lost track", evidence: "none" });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "completed", job));
    const after = await alertFigures(db, { kind: "charged_after_release", windowMinutes: 60 }, new Date());
    expect(after.count - before.count).toBe(1);
    const usd = (rows: { currency: string; micros: number | string }[]) =>
      Number(rows.find((r) => r.currency === "USD")?.micros ?? 0);
    expect(usd(after.held) - usd(before.held)).toBe(100_000);
    const stats = await overviewStats(db, finance, {
      alertWindowMinutes: 60,
      alertThreshold: 10,
      producers: [shop.name],
    });
    expect(stats.chargedAfterRelease.find((r) => r.currency === "USD")?.count).toBeGreaterThanOrEqual(1);
    const family = (await metricsSnapshot(db)).find((f) => f.name === "recovery_charged_after_release_open");
    expect(family?.samples.find((s) => s.labels?.currency === "USD")?.value).toBe(after.count);
    await acknowledgeLateCharge(db, finance, hold.id, { note: "booked as a cost" });
    const decided = await alertFigures(db, { kind: "charged_after_release", windowMinutes: 60 }, new Date());
    expect(decided.count).toBe(after.count - 1);
  });

  it("stays in Finance's totals and the holds export after it is decided: money nobody reserved", async () => {
    const { finance } = await financeToken();
    const lateOf = async () =>
      (await getFinanceTotals(db, finance, [shop.name])).byCurrency.find((r) => r.currency === "USD")?.lateCharged;
    const before = (await lateOf()) ?? { count: 0, micros: 0 };
    const { operationId, input, job, hold } = await inFlight();
    await resolveHold(db, finance, hold.id, { kind: "write_off", note: "lost track", evidence: "none" });
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, "completed", job));
    await acknowledgeLateCharge(db, finance, hold.id, { note: "booked as a cost" });
    expect(await lateOf()).toEqual({ count: before.count + 1, micros: String(BigInt(before.micros) + 100_000n) });
    const today = new Date().toISOString().slice(0, 10);
    const csv = await exportFinanceCsv(
      db,
      finance,
      exportQuerySchema.parse({ from: today, to: today, kind: "holds", producer: shop.name }),
    );
    const [header = "", ...rows] = csv.body.trim().split("\n");
    const row = rows.find((line) => line.endsWith(`,${hold.id}`))?.split(",") ?? [];
    const column = (name: string) => row[header.split(",").indexOf(name)];
    expect([column("late_charge_micros"), column("written_off"), column("status")]).toEqual([
      "100000",
      "true",
      "released",
    ]);
  });

  it("is counted per producer: a person limited to one shop reads that shop's charges only", async () => {
    const { finance } = await financeToken();
    const other = producer("late-charge-other-shop");
    const scoped = { ...finance, producers: [shop.name] };
    const lateOf = async (actor: typeof finance, producers: string[] | null) =>
      (await getFinanceTotals(db, actor, producers)).byCurrency.find((r) => r.currency === "USD")?.lateCharged ?? {
        count: 0,
        micros: "0",
      };
    const before = { mine: await lateOf(scoped, null), theirs: await lateOf(finance, [other.name]) };
    for (const who of [shop, other, other]) {
      const { operationId, input, job, hold } = await inFlight(who);
      await resolveHold(db, finance, hold.id, { kind: "write_off", note: "lost track", evidence: "none" });
      await reportOutcome(db, who, input.attemptId, outcomeInput(operationId, 1, "completed", job));
    }
    const plus = (figure: { count: number; micros: string }, n: number) => ({
      count: figure.count + n,
      micros: String(BigInt(figure.micros) + BigInt(n) * 100_000n),
    });
    expect(await lateOf(scoped, null)).toEqual(plus(before.mine, 1));
    // Asking for the other shop by name changes nothing: it is outside the person's producers.
    expect(await lateOf(scoped, [other.name])).toEqual({ count: 0, micros: "0" });
    expect(await lateOf(finance, [other.name])).toEqual(plus(before.theirs, 2));
    const open = await listOpenLateCharges(db, scoped);
    expect(new Set(open.map((item) => item.producer))).toEqual(new Set([shop.name]));
  });
});
