import { describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { type HoldDecision, resolveHold } from "@/lib/services/hold/resolve-hold";
import { authorizeReplacement, declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { makeUser, parkInput, producer } from "./fixtures";
import { countRows } from "./helpers/tables";
import { openTestDb } from "./setup/test-db";

// Rules 6 and 7 (holds resolve exactly once, only by finance) and section 6 (four-eyes replacement).
const { db, url } = openTestDb();
const shop = producer();
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);
const settle = (chargeMicros: number): HoldDecision => ({
  kind: "settle",
  chargeMicros,
  note: "invoice 2026-11 line 14",
  evidence: "provider usage export",
});
const release: HoldDecision = { kind: "release", note: "no charge on the invoice", evidence: "usage export, 0 s" };

/** A proven failure's hold: its outcome is known, so finance may settle or release it (DESIGN rule 18). */
async function heldCase(amountMicros = 100_000) {
  const input = parkInput("generation_failed");
  const { caseId } = await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros } });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
  return { caseId, holdRef: hold.id };
}

async function ledger(holdRef: string) {
  const entries = await db.ledgerEntry.findMany({ where: { holdRef }, orderBy: { createdAt: "asc" } });
  return Object.fromEntries(entries.map((e) => [e.kind, { amount: Number(e.amountMicros), flagged: e.flagged }]));
}

describe("holds", () => {
  it("a partial settle posts the charge and releases the rest; the entries add up", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { caseId, holdRef } = await heldCase(100_000);
    const result = await resolveHold(db, finance, holdRef, settle(40_000));
    expect(result.status).toBe("settled");
    const hold = await db.hold.findUniqueOrThrow({ where: { id: holdRef } });
    expect(hold).toMatchObject({ status: "settled", settledMicros: 40_000n, releasedMicros: 60_000n });
    expect(hold.decidedById).toBe(finance.userId);
    expect(hold.resolvedAt).not.toBeNull();
    expect(await ledger(holdRef)).toEqual({
      reserve: { amount: 100_000, flagged: false },
      settle: { amount: 40_000, flagged: false },
      release: { amount: 60_000, flagged: false },
    });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(0n);
    expect(await db.auditEvent.count({ where: { caseId, kind: "hold_settled" } })).toBe(1);
  });

  it("a settle of exactly the hold has no release entry", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { holdRef } = await heldCase(75_000);
    await resolveHold(db, finance, holdRef, settle(75_000));
    expect(await ledger(holdRef)).toEqual({
      reserve: { amount: 75_000, flagged: false },
      settle: { amount: 75_000, flagged: false },
    });
  });

  it("a charge above the hold settles the held amount and books the excess as a flagged overage", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { holdRef } = await heldCase(100_000);
    await resolveHold(db, finance, holdRef, settle(130_000));
    const hold = await db.hold.findUniqueOrThrow({ where: { id: holdRef } });
    expect(hold).toMatchObject({ status: "settled", settledMicros: 100_000n, releasedMicros: 0n });
    expect(await ledger(holdRef)).toEqual({
      reserve: { amount: 100_000, flagged: false },
      settle: { amount: 100_000, flagged: false },
      overage: { amount: 30_000, flagged: true },
    });
  });

  it("a release returns the whole hold", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { caseId, holdRef } = await heldCase(90_000);
    await resolveHold(db, finance, holdRef, release);
    expect(await db.hold.findUniqueOrThrow({ where: { id: holdRef } })).toMatchObject({
      status: "released",
      settledMicros: 0n,
      releasedMicros: 90_000n,
    });
    expect(await ledger(holdRef)).toEqual({
      reserve: { amount: 90_000, flagged: false },
      release: { amount: 90_000, flagged: false },
    });
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(0n);
  });

  it("a resolved hold cannot be resolved again, either way, and nothing is written", async () => {
    const finance = await makeUser(db, ["finance"]);
    const other = await makeUser(db, ["finance"]);
    const { holdRef } = await heldCase();
    await resolveHold(db, finance, holdRef, settle(10_000));
    const before = await countRows(db);
    const snapshot = await db.hold.findUniqueOrThrow({ where: { id: holdRef } });
    for (const decision of [release, settle(10_000), settle(500_000)]) {
      expect(await refused(resolveHold(db, other, holdRef, decision))).toBe("hold_already_resolved");
    }
    expect(await countRows(db)).toEqual(before);
    expect(await db.hold.findUniqueOrThrow({ where: { id: holdRef } })).toEqual(snapshot);
  });

  it("a zero or fractional charge is refused", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { holdRef } = await heldCase();
    for (const charge of [0, -1, 1.5]) {
      expect(await refused(resolveHold(db, finance, holdRef, settle(charge)))).toBe("invalid_amount");
    }
    expect((await db.hold.findUniqueOrThrow({ where: { id: holdRef } })).status).toBe("held");
  });

  it("concurrent settle and release on the same hold: exactly one wins, the other is refused", async () => {
    const a = await makeUser(db, ["finance"]);
    const b = await makeUser(db, ["finance"]);
    const wide = createPrismaClient(url, 10);
    try {
      for (let round = 0; round < 5; round++) {
        const { caseId, holdRef } = await heldCase(100_000);
        const outcomes = await Promise.allSettled([
          resolveHold(wide, a, holdRef, settle(60_000)),
          resolveHold(wide, b, holdRef, release),
          resolveHold(wide, b, holdRef, settle(20_000)),
        ]);
        const winners = outcomes.filter((o) => o.status === "fulfilled");
        expect(winners).toHaveLength(1);
        for (const o of outcomes) {
          if (o.status === "rejected") expect(["conflict", "hold_already_resolved"]).toContain(codeOf(o.reason));
        }
        const hold = await db.hold.findUniqueOrThrow({ where: { id: holdRef } });
        expect(hold.settledMicros + hold.releasedMicros).toBe(100_000n);
        const entries = await db.ledgerEntry.findMany({ where: { holdRef, kind: { not: "reserve" } } });
        const resolvedSum = entries.reduce((sum, e) => sum + e.amountMicros, 0n);
        expect(resolvedSum).toBe(100_000n);
        expect(await db.auditEvent.count({ where: { caseId, kind: { in: ["hold_settled", "hold_released"] } } })).toBe(
          1,
        );
        expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(0n);
      }
    } finally {
      await wide.$disconnect();
    }
  });

  it("only finance decides holds: operator, reviewer and admin are forbidden", async () => {
    const { holdRef } = await heldCase();
    for (const roles of [["operator"], ["reviewer"], ["admin"], ["operator", "reviewer"]] as const) {
      const user = await makeUser(db, [...roles]);
      expect(await refused(resolveHold(db, user, holdRef, settle(1)))).toBe("forbidden");
      expect(await refused(resolveHold(db, user, holdRef, release))).toBe("forbidden");
    }
    expect(await refused(resolveHold(db, shop, holdRef, release))).toBe("forbidden");
    expect((await db.hold.findUniqueOrThrow({ where: { id: holdRef } })).status).toBe("held");
    expect(await db.ledgerEntry.count({ where: { holdRef } })).toBe(1);
  });
});

async function failedCase(amountMicros = 100_000) {
  const input = parkInput("generation_failed");
  const parked = await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros } });
  return { caseId: parked.caseId, input };
}

describe("replacement generation (four-eyes)", () => {
  it("can only be requested for a proven failure", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const polling = await parkCase(db, shop, parkInput("polling"));
    const delivery = await parkCase(db, shop, parkInput("delivery"));
    const uncertain = await parkCase(db, shop, parkInput("submission_uncertain"));
    const before = await countRows(db);
    for (const { caseId } of [polling, delivery, uncertain]) {
      expect(await refused(requestReplacement(db, reviewer, caseId, { evidence: "please" }))).toBe(
        "replacement_not_allowed",
      );
    }
    expect(await countRows(db)).toEqual(before);
    // Once reconciled as "no job exists", the uncertain submission is a proven failure.
    await reconcileCase(
      db,
      reviewer,
      uncertain.caseId,
      { verdict: "no_job", evidence: "no job in the provider's list for the window" },
      { now: new Date("2100-01-01T00:00:00Z") },
    );
    const { requestId } = await requestReplacement(db, reviewer, uncertain.caseId, { evidence: "no job exists" });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      status: "pending",
      amountMicros: 100_000n,
      requestedById: reviewer.userId,
    });
    // An operator or a finance-only user cannot ask for a new paid generation.
    for (const roles of [["operator"], ["finance"]] as const) {
      const user = await makeUser(db, [...roles]);
      expect(await refused(requestReplacement(db, user, polling.caseId, { evidence: "x" }))).toBe("forbidden");
    }
  });

  it("holding both roles does not let one person authorise their own request; another finance user can", async () => {
    const both = await makeUser(db, ["reviewer", "finance"]);
    const reviewerOnly = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const { caseId, input } = await failedCase(120_000);
    const { requestId, amountMicros } = await requestReplacement(db, both, caseId, { evidence: "content filter" });
    expect(amountMicros).toBe(120_000);
    expect(await refused(requestReplacement(db, both, caseId, { evidence: "again" }))).toBe("conflict");

    const before = await countRows(db);
    expect(await refused(authorizeReplacement(db, both, requestId, { evidence: "mine" }))).toBe("four_eyes_violation");
    expect(await refused(declineReplacement(db, both, requestId, { evidence: "mine" }))).toBe("four_eyes_violation");
    expect(await refused(authorizeReplacement(db, reviewerOnly, requestId, { evidence: "ok" }))).toBe("forbidden");
    expect(await countRows(db)).toEqual(before);

    const authorised = await authorizeReplacement(db, finance, requestId, { evidence: "budget approved" });
    expect(authorised).toEqual({
      requestId,
      attemptId: `${input.attemptId}-replacement-1`,
      holdId: `replacement-${requestId}`,
      // Decision 036: the replacement's send permit, issued with the authorisation.
      permit: { token: 1, sendDeadline: expect.any(String) },
    });
    const original = await db.attempt.findFirstOrThrow({ where: { attemptId: input.attemptId } });
    const replacement = await db.attempt.findFirstOrThrow({
      where: { attemptId: authorised.attemptId },
      include: { hold: { include: { entries: true } } },
    });
    expect(replacement).toMatchObject({
      kind: "replacement",
      replacesAttemptId: original.id,
      operationRef: original.operationRef,
    });
    expect(replacement.hold).toMatchObject({
      holdId: authorised.holdId,
      status: "held",
      amountMicros: 120_000n,
      caseId,
    });
    expect(replacement.hold?.entries.map((e) => [e.kind, e.amountMicros])).toEqual([["reserve", 120_000n]]);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ state: "resolved", outcome: "replacement_authorized", heldMicros: 240_000n });
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      status: "authorized",
      decidedById: finance.userId,
      newAttemptRef: replacement.id,
    });
    // Decided once: a second authorisation is refused and buys nothing.
    const other = await makeUser(db, ["finance"]);
    const after = await countRows(db);
    expect(await refused(authorizeReplacement(db, other, requestId, { evidence: "again" }))).toBe("illegal_transition");
    expect(await countRows(db)).toEqual(after);
  });

  it("an expired request cannot be authorised and nothing is bought", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const { caseId } = await failedCase();
    const { requestId, expiresAt } = await requestReplacement(
      db,
      reviewer,
      caseId,
      { evidence: "content filter" },
      { ttlSeconds: 1 },
    );
    expect(expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(1_000);
    await db.$executeRaw`UPDATE replacement_requests SET expires_at = now() - interval '1 second' WHERE id = ${requestId}::uuid`;
    const before = await countRows(db);
    expect(await refused(authorizeReplacement(db, finance, requestId, { evidence: "late" }))).toBe(
      "replacement_expired",
    );
    expect(await countRows(db)).toEqual(before);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ state: row.state, heldMicros: row.heldMicros }).toEqual({ state: "parked", heldMicros: 100_000n });
  });

  it("two finance users authorising at once buy exactly one replacement; the other gets a clear refusal", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const a = await makeUser(db, ["finance"]);
    const b = await makeUser(db, ["finance"]);
    const { caseId } = await failedCase();
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    const wide = createPrismaClient(url, 4);
    const outcomes = await Promise.allSettled([
      authorizeReplacement(wide, a, requestId, { evidence: "yes" }),
      authorizeReplacement(wide, b, requestId, { evidence: "yes" }),
    ]).finally(() => wide.$disconnect());
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(await db.hold.count({ where: { caseId } })).toBe(2);
    expect(await db.attempt.count({ where: { kind: "replacement", operation: { case: { id: caseId } } } })).toBe(1);
    // The loser must hear "someone else decided this" (a 409), not an unexplained server error.
    const loser = outcomes.find((o) => o.status === "rejected");
    expect(["lost_race", "conflict", "illegal_transition"]).toContain(codeOf(loser?.reason));
  });

  it("parking the authorised replacement attempt opens episode 2 on the same case; both episodes stay in the timeline", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const { caseId, input } = await failedCase();
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    const { attemptId, holdId } = await authorizeReplacement(db, finance, requestId, { evidence: "approved" });
    const holdsBefore = await db.hold.count({ where: { caseId } });

    const replacementPark = parkInput("polling", {
      operationId: input.operationId,
      attemptId,
      providerJobId: "job-of-the-replacement",
      requestFingerprint: input.requestFingerprint,
      hold: { holdId, amountMicros: 100_000, currency: "USD" },
    });
    // The producer cannot name a different hold for the replacement attempt.
    const before = await countRows(db);
    expect(
      await refused(parkCase(db, shop, { ...replacementPark, hold: { ...replacementPark.hold, holdId: "other" } })),
    ).toBe("conflicting_registration");
    expect(await countRows(db)).toEqual(before);

    const reopened = await parkCase(db, shop, replacementPark);
    expect(reopened).toEqual({ caseId, created: true, stage: "polling", state: "parked" });
    expect(await parkCase(db, shop, replacementPark)).toEqual({ ...reopened, created: false });
    // The replacement's hold was reserved at authorisation; parking it reserves nothing more.
    expect(await db.hold.count({ where: { caseId } })).toBe(holdsBefore);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({ episode: 2, attemptId, heldMicros: 200_000n, outcome: null, state: "parked" });
    await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "replacement job is running" });
    const timeline = await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });
    const kinds = timeline.map((e) => `${e.episode}:${e.kind}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        "1:parked",
        "1:replacement_requested",
        "1:replacement_authorized",
        "1:hold_reserved",
        "2:approved",
      ]),
    );
    expect(timeline.some((e) => e.kind === "reopened")).toBe(true);
    expect(timeline.findIndex((e) => e.kind === "replacement_authorized")).toBeLessThan(
      timeline.findIndex((e) => e.kind === "reopened"),
    );
  });

  it("accepting a failure closes the case but leaves the hold for finance", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const { caseId } = await failedCase();
    await acceptFailure(db, reviewer, caseId, { evidence: "provider says failed, no charge expected" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    expect(hold.status).toBe("held");
    await resolveHold(db, finance, hold.id, release);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(0n);
  });
});
