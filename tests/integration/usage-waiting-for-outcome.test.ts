import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { approveCase } from "@/lib/services/case/approve-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { usageGap } from "@/lib/services/usage/usage-gap";
import { runTick } from "@/lib/worker/run-tick";
import { makeUser, outcomeInput, permitInput, producer, worker } from "./fixtures";
import { ledgerCharge, parkedHold, usageCsv } from "./helpers/usage";
import { simulatorAndWorker } from "./helpers/worker-context";
import { openTestDb } from "./setup/test-db";

// Decision 077: a usage line that names the job of a hold whose send may still complete (its case an
// uncertain submission or a job still being checked) is kept and matched but settles nothing: the
// outcome decides the hold first (DESIGN rule 18), and the line is applied once it is known.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("usage-waiting-shop");
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;

async function importLine(
  finance: Awaited<ReturnType<typeof makeUser>>,
  job: string,
  amount: string,
  currency: string,
) {
  return importUsageFile(db, finance, {
    provider: "replicate",
    format: "generic",
    fileName: `${job}.csv`,
    content: usageCsv([`${job},${amount},${currency},2026-12-01T10:00:00Z`]),
  });
}

describe("a usage line for a hold whose case's outcome is not known yet", () => {
  it("is matched and waits: the hold stays held; finance's own decision then applies it", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { hold, jobId, caseId } = await parkedHold(db, {
      currency: "XBJ",
      amountMicros: 100_000,
      who: shop,
      stage: "polling",
    });
    const summary = await importLine(finance, jobId, "0.08", "XBJ");
    expect(summary).toMatchObject({ added: 1, matched: 0, waiting: 1, unexplained: 0 });
    expect(summary.lines[0]).toMatchObject({ outcome: "waiting", holdId: hold.holdId, differenceMicros: null });
    expect(summary.lines[0]?.waitingFor).toMatch(/still being checked/);
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
    const entries = await db.ledgerEntry.findMany({ where: { holdRef: hold.id } });
    expect(entries.map((e) => e.kind)).toEqual(["reserve"]);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(100_000n);
    const line = await db.usageLine.findFirstOrThrow({ where: { providerJobId: jobId } });
    expect(line).toMatchObject({ holdRef: hold.id, adjustmentMicros: null, unmatchedReason: null });
    // The gap view already shows what the provider charged for the job.
    const gap = await usageGap(db, finance, { days: 30 });
    expect(gap.rows.filter((row) => row.currency === "XBJ")).toEqual([
      expect.objectContaining({ reservedMicros: "100000", chargedMicros: "80000" }),
    ]);
    // The same export again adds nothing, and still settles nothing.
    expect(await importLine(finance, jobId, "0.08", "XBJ")).toMatchObject({ added: 0, alreadyImported: 1 });
    expect(await ledgerCharge(db, hold.id)).toBe(0n);
    // A release stays refused while the outcome is unknown; finance settles (with the warning) and
    // the waiting line corrects that settlement to the provider's figure in the same transaction.
    const release = { kind: "release", note: "none", evidence: "usage" } as const;
    expect(await resolveHold(db, finance, hold.id, release).catch(codeOf)).toBe("send_outcome_unknown");
    await resolveHold(db, finance, hold.id, { kind: "settle", chargeMicros: 100_000, note: "job", evidence: "x" });
    expect(await ledgerCharge(db, hold.id)).toBe(80_000n);
    expect(await db.usageLine.findUniqueOrThrow({ where: { id: line.id } })).toMatchObject({
      adjustmentMicros: -20_000n,
    });
    const adjustment = await db.ledgerEntry.findFirstOrThrow({ where: { holdRef: hold.id, kind: "adjustment" } });
    expect(adjustment).toMatchObject({ amountMicros: -20_000n, usageLineRef: line.id });
  });

  it("waits while a send permit is in flight; the producer's completion report applies it", async () => {
    const finance = await makeUser(db, ["finance"]);
    const { operationId, input } = permitInput({
      hold: { holdId: `hold-${randomUUID()}`, amountMicros: 100_000, currency: "XBL" },
    });
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted") throw new Error(`expected a permit, got ${permit.status}`);
    const job = `job-${operationId}`;
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, permit.permit.token, "accepted", job));
    const hold = await db.hold.findFirstOrThrow({ where: { producer: shop.name, holdId: input.hold.holdId } });
    const summary = await importLine(finance, job, "0.07", "XBL");
    expect(summary.lines[0]).toMatchObject({ outcome: "waiting", holdId: hold.holdId });
    expect(summary.lines[0]?.waitingFor).toMatch(/in flight/);
    expect(await ledgerCharge(db, hold.id)).toBe(0n);
    // The completion settles the whole hold, and the waiting line corrects it in the same transaction.
    await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, permit.permit.token, "completed"));
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "settled" });
    expect(await ledgerCharge(db, hold.id)).toBe(70_000n);
    expect((await db.usageLine.findFirstOrThrow({ where: { providerJobId: job } })).adjustmentMicros).toBe(-30_000n);
  });

  describe("once the worker's status check finds the job completed", () => {
    const live = simulatorAndWorker(db);

    it("the worker's next round applies the line to the hold the completion settled", async () => {
      const finance = await makeUser(db, ["finance"]);
      const reviewer = await makeUser(db, ["reviewer"]);
      const job = live.sim.state.seedJob({ provider: "replicate", outcome: "succeeded" });
      const { hold, caseId } = await parkedHold(db, {
        currency: "USD",
        amountMicros: 100_000,
        who: shop,
        job: job.id,
        stage: "polling",
      });
      expect(await importLine(finance, job.id, "0.125", "USD")).toMatchObject({ waiting: 1, matched: 0 });
      // A round with the case still being checked leaves the line waiting.
      await runTick(live.ctx, worker(), { maxTasks: 5 });
      expect(await ledgerCharge(db, hold.id)).toBe(0n);

      await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check the job" });
      await runTick(live.ctx, worker(), { maxTasks: 5 });
      const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
      expect(kase.stage).toBe("delivery");
      await runTick(live.ctx, worker(), { maxTasks: 5 });
      expect(await ledgerCharge(db, hold.id)).toBe(125_000n);
      const line = await db.usageLine.findFirstOrThrow({ where: { providerJobId: job.id } });
      expect(line.adjustmentMicros).not.toBeNull();
      const audit = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "charge_corrected" } });
      expect(audit.after).toMatchObject({ realMicros: "125000" });
      expect(live.sim.state.stats().creates.total).toBe(0);
    });
  });
});
