import { describe, expect, it } from "vitest";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { type HoldDecision, resolveHold } from "@/lib/services/hold/resolve-hold";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { listHoldsNotInvoiced } from "@/lib/services/usage/list-holds-not-invoiced";
import { moveJobToSend } from "@/lib/services/usage/move-job-to-send";
import { chargedOn, makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 084: a shop named another operation's job as its own (the provider gave no evidence to
// refuse the bare claim), so that job's invoice line corrected the wrong send's hold, the send that
// made it stayed as it was, and the shop's own job could not be attached ("one send makes one job").
// Finance moves the job to the send that made it: the wrong hold's adjustment is reversed, the line
// corrects the right hold, and the shop's own job then attaches; the ledger equals the invoice with
// nothing charged on a hold no line names. Each test uses its own currency.
const { db } = openTestDb();
const shop = producer("move-job-shop");
const MODEL = "minimax/video-01";
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);
const settleAll: HoldDecision = { kind: "settle", chargeMicros: 100_000, note: "delivered", evidence: "policy" };
const release: HoldDecision = { kind: "release", note: "no job, no charge", evidence: "no job exists" };
const at = new Date(Date.now() - 2 * 3_600_000);
const unique = () => Math.random().toString(36).slice(2);

async function parked(currency: string, stage: "submission_uncertain" | "generation_failed", job?: string) {
  const input = parkInput(stage, {
    model: MODEL,
    requestFingerprint: requestFingerprint({ prompt: unique() }),
    submittedAt: at.toISOString(),
    ...(job ? { providerJobId: job } : {}),
  });
  const { caseId } = await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros: 100_000, currency } });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } });
  return { caseId: String(caseId), attemptId: input.attemptId, holdRef: hold.id };
}

/** The send that made `job`: it never learned it, "no job exists" was recorded, its hold released. */
async function makerWithoutJob(currency: string) {
  const sent = await parked(currency, "submission_uncertain");
  const reviewer = await makeUser(db, ["reviewer"]);
  await reconcileCase(
    db,
    reviewer,
    sent.caseId,
    { verdict: "no_job", evidence: "not in the list" },
    { now: new Date("2100-01-01") },
  );
  await acceptFailure(db, reviewer, sent.caseId, { evidence: "nothing to deliver" });
  await resolveHold(db, await makeUser(db, ["finance"]), sent.holdRef, release);
  return sent;
}

/** The send that named `job` as its own: its case resolved with it, its hold settled at the reservation. */
async function misnamer(currency: string, job: string) {
  const sent = await parked(currency, "generation_failed", job);
  await acceptFailure(db, await makeUser(db, ["reviewer"]), sent.caseId, { evidence: "the shop says it failed" });
  await resolveHold(db, await makeUser(db, ["finance"]), sent.holdRef, settleAll);
  return sent;
}

async function invoice(currency: string, lines: [string, string][]) {
  const rows = lines.map(([job, amount]) => `${job},${amount},${currency},${at.toISOString()},${MODEL}`);
  await importUsageFile(db, await makeUser(db, ["finance"]), {
    provider: "replicate",
    format: "generic",
    fileName: `invoice-${unique()}.csv`,
    content: `provider_job_id,amount,currency,time,model\n${rows.join("\n")}\n`,
  });
}

const row = async (currency: string) =>
  (await ledgerVersusInvoice(db, await makeUser(db, ["finance"]), { provider: "replicate" })).find(
    (r) => r.currency === currency,
  );
const charged = (holdRef: string) => chargedOn(db, holdRef);

describe("moving a job to the send that made it", () => {
  it("reverses the wrong hold's correction, charges the right send, and frees the wrong send for its own job", async () => {
    const made = `made-${unique()}`;
    const own = `own-${unique()}`;
    const maker = await makerWithoutJob("XMA");
    const wrong = await misnamer("XMA", made);
    await invoice("XMA", [
      [made, "0.08"],
      [own, "0.09"],
    ]);
    // The wrong send was corrected by the other send's charge; its own job cannot be attached.
    expect(await charged(wrong.holdRef)).toBe(80_000n);
    expect(await row("XMA")).toMatchObject({ notOnInvoiceMicros: "0", unexplainedMicros: "90000" });
    const finance = await makeUser(db, ["finance"]);
    const attachOwn = () =>
      attachUnexplainedCharge(db, finance, {
        provider: "replicate",
        providerJobId: own,
        caseId: wrong.caseId,
        attemptId: wrong.attemptId,
        evidence: "the shop's log shows this job is theirs",
      });
    expect(await refused(attachOwn())).toBe("conflict");

    const moved = await moveJobToSend(db, finance, {
      provider: "replicate",
      providerJobId: made,
      caseId: maker.caseId,
      attemptId: maker.attemptId,
      evidence: "the shop named another operation's job; the maker's prompt is on the invoice line",
    });
    expect(moved).toMatchObject({ from: { attemptId: wrong.attemptId }, linesMatched: 1, reversedMicros: "20000" });
    // The wrong send is back at its reservation and names no job; its case keeps its outcome.
    expect(await charged(wrong.holdRef)).toBe(100_000n);
    expect(await db.case.findUniqueOrThrow({ where: { id: wrong.caseId } })).toMatchObject({
      state: "resolved",
      stage: "generation_failed",
      providerJobId: null,
    });
    // The maker's released hold is charged after release (flagged, rule 18) at the provider's figure.
    expect(await charged(maker.holdRef)).toBe(80_000n);
    expect(await db.ledgerEntry.count({ where: { holdRef: maker.holdRef, kind: "late_charge", flagged: true } })).toBe(
      1,
    );
    expect(await db.attempt.findFirstOrThrow({ where: { providerJobId: made } })).toMatchObject({
      attemptId: maker.attemptId,
    });

    // Until its own job's line is attached, the wrong send is charged with no line naming it: listed, with no job.
    const notInvoiced = async () =>
      (await listHoldsNotInvoiced(db, finance, { provider: "replicate" })).filter((h) => h.currency === "XMA");
    expect(await notInvoiced()).toEqual([
      expect.objectContaining({ attemptId: wrong.attemptId, providerJobId: null, chargedMicros: "100000" }),
    ]);

    await attachOwn();
    expect(await notInvoiced()).toEqual([]);
    expect(await charged(wrong.holdRef)).toBe(90_000n);
    expect(await row("XMA")).toMatchObject({
      invoiceMicros: "170000",
      ledgerMicros: "170000",
      unexplainedMicros: "0",
      notOnInvoiceMicros: "0",
    });
    // Both timelines say what happened; the move is on finance's own record.
    const conflicts = await db.auditEvent.findMany({
      where: { caseId: { in: [wrong.caseId, maker.caseId] }, kind: "job_claim_contested" },
    });
    expect(conflicts).toHaveLength(2);
    expect(await db.auditEvent.count({ where: { caseId: wrong.caseId, kind: "provider_job_disowned" } })).toBe(1);
    expect(
      await db.auditEvent.count({
        where: { kind: "provider_job_moved", after: { path: ["caseId"], equals: maker.caseId } },
      }),
    ).toBe(1);
  });

  it("refuses a job nobody records, a target with a job, and a move back, changing nothing", async () => {
    const made = `made-${unique()}`;
    const maker = await makerWithoutJob("XMB");
    const wrong = await misnamer("XMB", made);
    const other = await misnamer("XMB", `other-${unique()}`);
    await invoice("XMB", [[made, "0.05"]]);
    const finance = await makeUser(db, ["finance"]);
    const move = (providerJobId: string, to: { caseId: string; attemptId: string }) =>
      moveJobToSend(db, finance, { provider: "replicate", providerJobId, ...to, evidence: "the shop told us" });
    const before = await db.ledgerEntry.count();

    expect(await refused(move(`nobody-${unique()}`, maker))).toBe("not_found");
    expect(await refused(move(made, other))).toBe("conflict");
    expect(await refused(move(made, wrong))).toBe("conflict");
    expect(await db.ledgerEntry.count()).toBe(before);
    expect(await charged(wrong.holdRef)).toBe(50_000n);

    await move(made, maker);
    expect(await refused(move(made, wrong))).toBe("conflict");
    expect(await charged(wrong.holdRef)).toBe(100_000n);
    expect(await charged(maker.holdRef)).toBe(50_000n);
  });
});
