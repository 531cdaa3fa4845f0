import { describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { makeUser, outcomeInput, parkInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { ledgerCharge } from "./helpers/usage";
import { openTestDb } from "./setup/test-db";

// Decision 080 at its seams: a send that is not the case's open question whose outcome is still
// unknown (decision 077), the ownership rule on that path, and the attach over HTTP. Each test uses
// its own currency, so the shared database's other charges never move its lines.
const { db } = openTestDb();
const shop = producer("earlier-send-doors-shop");
const MODEL = "minimax/video-01";
const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code;
const newJob = () => `late-${Math.random().toString(36).slice(2)}`;

/** A send whose failure was accepted after a "no job exists" verdict, its hold settled at its reservation. */
async function resolvedWithoutJob(currency: string) {
  const submittedAt = new Date(Date.now() - 2 * 3_600_000);
  const input = parkInput("submission_uncertain", {
    model: MODEL,
    requestFingerprint: requestFingerprint({ prompt: `doors ${currency}` }),
    submittedAt: submittedAt.toISOString(),
  });
  const { caseId } = await parkCase(db, shop, { ...input, hold: { ...input.hold, amountMicros: 100_000, currency } });
  const reviewer = await makeUser(db, ["reviewer"]);
  const id = String(caseId);
  await reconcileCase(db, reviewer, id, { verdict: "no_job", evidence: "not listed" }, { now: new Date("2100-01-01") });
  await acceptFailure(db, reviewer, id, { evidence: "nothing to deliver" });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId: id } });
  await resolveHold(db, await makeUser(db, ["finance"]), hold.id, {
    kind: "settle",
    chargeMicros: 100_000,
    note: "failed, charged",
    evidence: "policy",
  });
  return { caseId: id, attemptId: input.attemptId, holdRef: hold.id, submittedAt };
}

async function invoiceLine(job: string, amount: string, currency: string, at: Date) {
  await importUsageFile(db, await makeUser(db, ["finance"]), {
    provider: "replicate",
    format: "generic",
    fileName: `doors-${job}.csv`,
    content: `provider_job_id,amount,currency,time,model\n${job},${amount},${currency},${at.toISOString()},${MODEL}\n`,
  });
}

const tally = async () => {
  const [entries, attempts, audits, lines] = await Promise.all([
    db.ledgerEntry.count(),
    db.attempt.findMany({ select: { id: true, providerJobId: true }, orderBy: { id: "asc" } }),
    db.auditEvent.findMany({ select: { id: true, kind: true }, orderBy: { id: "asc" } }),
    db.usageLine.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { entries, attempts, audits, lines };
};

describe("attaching to a send that is not the case's open question", () => {
  // Of an operation with a case, only an authorised replacement's send can be held with its outcome
  // unknown on a non-current attempt: an earlier send's permit speaks through the case once parked,
  // and a case's non-current attempt has no open question of its own (lib/domain/send-outcome.ts).
  it("waits while that send is in flight, leaving its hold held; the producer's completion applies it", async () => {
    const finance = await makeUser(db, ["finance"]);
    const reviewer = await makeUser(db, ["reviewer"]);
    const first = parkInput("generation_failed", {
      model: MODEL,
      hold: { holdId: `hold-${newJob()}`, amountMicros: 100_000, currency: "XVD" },
    });
    const { caseId } = await parkCase(db, shop, first);
    const { requestId } = await requestReplacement(db, reviewer, String(caseId), { evidence: "retry it" });
    const replacement = await authorizeReplacement(db, finance, requestId, { evidence: "budget ok" });
    const hold = await db.hold.findFirstOrThrow({ where: { producer: shop.name, holdId: replacement.holdId } });
    const kase = await db.case.findUniqueOrThrow({ where: { id: String(caseId) } });
    expect(kase.attemptRef).not.toBe(hold.attemptRef);

    // The replacement's create reached the provider, its answer did not reach the shop; the invoice has it.
    const job = newJob();
    await invoiceLine(job, "0.07", "XVD", new Date());
    const offered = (
      await listUnexplainedCharges(db, finance, { provider: "replicate", page: 1, pageSize: 100 })
    ).charges.find((c) => c.providerJobId === job);
    expect(offered?.candidates.map((c) => c.attemptId)).toContain(replacement.attemptId);

    const result = await attachUnexplainedCharge(db, finance, {
      provider: "replicate",
      providerJobId: job,
      caseId: String(caseId),
      attemptId: replacement.attemptId,
      evidence: "the provider's copy of the replacement's request",
    });
    expect(result).toMatchObject({ stage: kase.stage, state: kase.state, linesMatched: 1 });
    expect(await db.case.findUniqueOrThrow({ where: { id: String(caseId) } })).toMatchObject({
      stage: kase.stage,
      state: kase.state,
      version: kase.version,
    });
    expect(await db.attempt.findUniqueOrThrow({ where: { id: hold.attemptRef } })).toMatchObject({
      providerJobId: job,
    });
    // Matched and waiting (decision 077): the hold stays held and nothing is charged yet.
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "held" });
    expect((await db.ledgerEntry.findMany({ where: { holdRef: hold.id } })).map((e) => e.kind)).toEqual(["reserve"]);
    expect(await ledgerCharge(db, hold.id)).toBe(0n);
    const line = await db.usageLine.findFirstOrThrow({ where: { providerJobId: job } });
    expect(line).toMatchObject({ holdRef: hold.id, adjustmentMicros: null, unmatchedReason: null });

    // The producer's completion report makes the outcome known: the hold settles, the line corrects it.
    await reportOutcome(
      db,
      shop,
      replacement.attemptId,
      outcomeInput(first.operationId, replacement.permit.token, "completed", job),
    );
    expect(await db.hold.findUniqueOrThrow({ where: { id: hold.id } })).toMatchObject({ status: "settled" });
    expect(await ledgerCharge(db, hold.id)).toBe(70_000n);
    expect((await db.usageLine.findUniqueOrThrow({ where: { id: line.id } })).adjustmentMicros).toBe(-30_000n);
  });

  it("refuses a job another producer's attempt already records, keeping only the flags of the refusal", async () => {
    const sent = await resolvedWithoutJob("XVE");
    const job = newJob();
    await invoiceLine(job, "0.05", "XVE", sent.submittedAt);
    // Another producer's report names the job after the import: its line still waits unexplained.
    await parkCase(db, producer("earlier-send-other-shop"), parkInput("polling", { model: MODEL, providerJobId: job }));
    const holder = await db.attempt.findFirstOrThrow({ where: { provider: "replicate", providerJobId: job } });
    const finance = await makeUser(db, ["finance"]);
    const attach = () =>
      attachUnexplainedCharge(db, finance, {
        provider: "replicate",
        providerJobId: job,
        caseId: sent.caseId,
        attemptId: sent.attemptId,
        evidence: "looks like ours",
      });
    const before = await tally();
    expect(codeOf(await attach().catch((e: unknown) => e))).toBe("provider_job_in_use");
    const after = await tally();
    expect(after.entries).toBe(before.entries);
    expect(after.attempts).toEqual(before.attempts);
    expect(after.lines).toEqual(before.lines);
    // The refused claim is kept after the rollback (decision 039): flagged on both operations, nothing else.
    const added = after.audits.slice(before.audits.length);
    expect(after.audits.slice(0, before.audits.length)).toEqual(before.audits);
    expect(added.map((a) => a.kind)).toEqual(["job_claim_contested", "job_claim_contested"]);
    expect(await db.attempt.findUniqueOrThrow({ where: { id: holder.id } })).toMatchObject({ providerJobId: job });
    expect(await db.case.findUniqueOrThrow({ where: { id: sent.caseId } })).toMatchObject({
      state: "resolved",
      stage: "generation_failed",
    });
    // Refused again, it flags nothing more.
    expect(codeOf(await attach().catch((e: unknown) => e))).toBe("provider_job_in_use");
    expect(await tally()).toEqual(after);
  });
});

describe("the attach route with an attempt named", () => {
  const handler = (key: string) => {
    const route = API_ROUTES.find((r) => routeKey(r) === key);
    if (!route) throw new Error(`no route ${key}`);
    return route.handle;
  };
  const attach = handler("POST /api/v1/finance/unexplained-charges/attach");

  it("attaches to the earlier send (200), and answers a malformed or unknown attempt with a typed error", async () => {
    const sent = await resolvedWithoutJob("XVF");
    const job = newJob();
    await invoiceLine(job, "0.083417", "XVF", sent.submittedAt);
    const token = (await createAccessToken(db, await makeUser(db, ["finance"]), { kind: "personal", name: "f" }))
      .secret;
    const body = (attemptId: unknown) => ({
      provider: "replicate",
      providerJobId: job,
      caseId: sent.caseId,
      attemptId,
      evidence: "the shop's log names this job",
    });

    const before = await tally();
    for (const malformed of ["", "   ", "x".repeat(201), 42]) {
      const answer = await callRoute(attach, { token, body: body(malformed) });
      expect(answer.status).toBe(400);
      expect(answer.json.error?.code).toBe("invalid_request");
      expect(JSON.stringify(answer.json)).not.toMatch(/at .*\.ts|\.js:\d+/);
    }
    const unknown = await callRoute(attach, { token, body: body("no-such-attempt") });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error?.code).toBe("not_found");
    expect(JSON.stringify(unknown.json)).not.toMatch(/at .*\.ts|\.js:\d+/);
    expect(await tally()).toEqual(before);

    const done = await callRoute(attach, { token, body: body(sent.attemptId) });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      caseId: sent.caseId,
      stage: "generation_failed",
      state: "resolved",
      provider: "replicate",
      providerJobId: job,
      linesMatched: 1,
    });
    expect(await ledgerCharge(db, sent.holdRef)).toBe(83_417n);
    const again = await callRoute(attach, { token, body: body(sent.attemptId) });
    expect(again.status).toBe(409);
    expect(again.json.error?.code).toBe("conflict");
  });
});
