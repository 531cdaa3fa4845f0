import { describe, expect, it } from "vitest";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { type HoldDecision, resolveHold } from "@/lib/services/hold/resolve-hold";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { chargedOn, makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 080: the provider bills a job whose "no job exists" verdict its lagging list gave, after
// the case was resolved and its hold decided. Finance attaches the charge to that send; the case
// stays resolved, and the hold's charge becomes the provider's (corrected if settled, charged after
// release if released), so the ledger equals the invoice with nothing charged twice. Each test uses
// its own currency, so the shared database's other charges never move its figures.
const { db } = openTestDb();
const shop = producer("earlier-send-shop");
const MODEL = "minimax/video-01";
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);
const settleAll: HoldDecision = { kind: "settle", chargeMicros: 100_000, note: "failed, charged", evidence: "policy" };
const release: HoldDecision = { kind: "release", note: "no job, no charge", evidence: "no job exists" };

/** An uncertain submission the reviewer found no job for, its failure accepted and its hold decided. */
async function resolvedWithoutJob(currency: string, decision: HoldDecision, prompt: string) {
  const submittedAt = new Date(Date.now() - 2 * 3_600_000);
  const input = parkInput("submission_uncertain", {
    model: MODEL,
    requestFingerprint: requestFingerprint({ prompt }),
    submittedAt: submittedAt.toISOString(),
  });
  const { caseId } = await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros: 100_000, currency } });
  const reviewer = await makeUser(db, ["reviewer"]);
  const id = String(caseId);
  await reconcileCase(
    db,
    reviewer,
    id,
    { verdict: "no_job", evidence: "not in the list" },
    { now: new Date("2100-01-01") },
  );
  await acceptFailure(db, reviewer, id, { evidence: "nothing to deliver" });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId: id } });
  await resolveHold(db, await makeUser(db, ["finance"]), hold.id, decision);
  return { caseId: id, attemptId: input.attemptId, holdRef: hold.id, submittedAt };
}

async function invoiceLine(job: string, amount: string, currency: string, at: Date) {
  await importUsageFile(db, await makeUser(db, ["finance"]), {
    provider: "replicate",
    format: "generic",
    fileName: `late-${job}.csv`,
    content: `provider_job_id,amount,currency,time,model\n${job},${amount},${currency},${at.toISOString()},${MODEL}\n`,
  });
}

const row = async (currency: string) =>
  (await ledgerVersusInvoice(db, await makeUser(db, ["finance"]), { provider: "replicate" })).find(
    (r) => r.currency === currency,
  );
const charged = (holdRef: string) => chargedOn(db, holdRef);

describe("a charge for the send of a case that went on without its job", () => {
  it("is offered, and attaching corrects the settled hold to the invoice; the case stays resolved", async () => {
    const sent = await resolvedWithoutJob("XVA", settleAll, "earlier send, settled");
    const job = `late-${Math.random().toString(36).slice(2)}`;
    expect(await row("XVA")).toMatchObject({ notOnInvoiceMicros: "100000" });
    await invoiceLine(job, "0.083417", "XVA", sent.submittedAt);

    const finance = await makeUser(db, ["finance"]);
    const list = await listUnexplainedCharges(db, finance, { provider: "replicate", page: 1, pageSize: 100 });
    const offered = list.charges.find((c) => c.providerJobId === job)?.candidates.find((c) => c.caseId === sent.caseId);
    expect(offered).toMatchObject({
      attemptId: sent.attemptId,
      stage: "generation_failed",
      state: "resolved",
      uncertain: false,
    });

    const result = await attachUnexplainedCharge(db, finance, {
      provider: "replicate",
      providerJobId: job,
      caseId: sent.caseId,
      attemptId: sent.attemptId,
      evidence: "the shop's log shows this job is ours; the provider's list lagged",
    });
    expect(result).toMatchObject({ stage: "generation_failed", state: "resolved", linesMatched: 1 });
    const kase = await db.case.findUniqueOrThrow({ where: { id: sent.caseId } });
    expect(kase).toMatchObject({ state: "resolved", stage: "generation_failed" });
    expect(await db.attempt.findFirstOrThrow({ where: { providerJobId: job } })).toMatchObject({
      attemptId: sent.attemptId,
    });
    expect(await charged(sent.holdRef)).toBe(83_417n);
    expect(await row("XVA")).toMatchObject({
      invoiceMicros: "83417",
      ledgerMicros: "83417",
      unexplainedMicros: "0",
      notOnInvoiceMicros: "0",
    });
    const timeline = await db.auditEvent.findMany({
      where: { caseId: sent.caseId, kind: "unexplained_charge_attached" },
    });
    expect(timeline).toHaveLength(1);
    expect(timeline[0]?.after).toMatchObject({ attemptId: sent.attemptId, caseWent: "stayed" });
  });

  it("charges a released hold after its release, flagged for finance (rule 18)", async () => {
    const sent = await resolvedWithoutJob("XVB", release, "earlier send, released");
    const job = `late-${Math.random().toString(36).slice(2)}`;
    await invoiceLine(job, "0.12", "XVB", sent.submittedAt);
    await attachUnexplainedCharge(db, await makeUser(db, ["finance"]), {
      provider: "replicate",
      providerJobId: job,
      caseId: sent.caseId,
      attemptId: sent.attemptId,
      evidence: "ours after all",
    });
    const late = await db.ledgerEntry.findFirstOrThrow({ where: { holdRef: sent.holdRef, kind: "late_charge" } });
    expect(late.flagged).toBe(true);
    expect(await charged(sent.holdRef)).toBe(120_000n);
    expect(await row("XVB")).toMatchObject({
      invoiceMicros: "120000",
      ledgerMicros: "120000",
      notOnInvoiceMicros: "0",
    });
  });

  it("refuses a send that already has a job, or one the operation never made, changing nothing", async () => {
    const sent = await resolvedWithoutJob("XVC", settleAll, "earlier send, refusals");
    const first = `late-${Math.random().toString(36).slice(2)}`;
    const second = `late-${Math.random().toString(36).slice(2)}`;
    await invoiceLine(first, "0.05", "XVC", sent.submittedAt);
    await invoiceLine(second, "0.05", "XVC", sent.submittedAt);
    const finance = await makeUser(db, ["finance"]);
    const attach = (providerJobId: string, attemptId: string) =>
      attachUnexplainedCharge(db, finance, {
        provider: "replicate",
        providerJobId,
        caseId: sent.caseId,
        attemptId,
        evidence: "ours",
      });
    await attach(first, sent.attemptId);
    const before = {
      lines: await db.usageLine.findMany({ where: { currency: "XVC" }, orderBy: { id: "asc" } }),
      entries: await db.ledgerEntry.count(),
      audits: await db.auditEvent.count(),
    };
    expect(await refused(attach(second, sent.attemptId))).toBe("conflict");
    expect(await refused(attach(second, "no-such-attempt"))).toBe("not_found");
    expect({
      lines: await db.usageLine.findMany({ where: { currency: "XVC" }, orderBy: { id: "asc" } }),
      entries: await db.ledgerEntry.count(),
      audits: await db.auditEvent.count(),
    }).toEqual(before);
  });
});
