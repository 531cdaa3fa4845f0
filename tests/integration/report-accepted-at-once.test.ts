import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { env } from "@/lib/env";
import { toErrorBody } from "@/lib/errors";
import { parkCase } from "@/lib/services/case/park-case";
import { reportAcceptedAtOnce } from "@/lib/services/permit/report-accepted";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { outcomeInput, parkInput, permitInput, producer } from "./fixtures";
import { tableCounts, withRefusalKept } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// docs/performance.md §7a: an `accepted` report on a live permit is one statement; whatever that
// statement cannot decide goes to the locked transaction, which writes the same rows.
const { db, url } = openTestDb();
const shop = producer("at-once-shop");
const rival = producer("at-once-rival");
const wide = createPrismaClient(url, 20);
afterAll(() => wide.$disconnect());
const noPrompts = { storePrompts: false };

async function permitted(who = shop, overrides: Parameters<typeof permitInput>[0] = {}) {
  const { operationId, input } = permitInput(overrides);
  const result = await requestPermit(db, who, operationId, input, env());
  if (result.status !== "permitted") throw new Error(`expected a permit, got ${result.status}`);
  return { operationId, attemptId: input.attemptId, token: result.permit.token };
}

/** What a report leaves behind, without the row IDs and clocks: permit, attempt, audit rows. */
async function written(operationId: string) {
  const permit = await db.sendPermit.findFirstOrThrow({
    where: { operation: { operationId, producer: { in: [shop.name, rival.name] } } },
    include: { attempt: { select: { providerJobId: true } } },
  });
  const audit = await db.auditEvent.findMany({
    where: {
      kind: { startsWith: "permit_" },
      NOT: { kind: "permit_issued" },
      after: { path: ["operationId"], equals: operationId },
    },
    orderBy: { id: "asc" },
    select: {
      kind: true,
      caseId: true,
      operationRef: true,
      episode: true,
      actorKind: true,
      actorLabel: true,
      after: true,
      evidence: true,
    },
  });
  return {
    // Every permit event on the operation's own audit chain (decision 059).
    onOperationChain: audit.every((event) => event.operationRef === permit.operationRef),
    status: permit.status,
    providerJobId: permit.providerJobId,
    attemptJob: permit.attempt.providerJobId,
    lastReport: permit.lastReport,
    reported: permit.reportedAt !== null,
    caseRef: permit.caseRef,
    audit: audit.map(({ operationRef: _, ...event }) => event),
  };
}

/** The rows of one operation with its own names replaced, so two operations' rows compare. */
const anonymous = (rows: unknown, operationId: string, job: string) =>
  JSON.parse(JSON.stringify(rows).replaceAll(job, "JOB").replaceAll(operationId, "OP"));

describe("an accepted report in one statement", () => {
  it("writes the same rows as the locked transaction", async () => {
    const fast = await permitted();
    const locked = await permitted();
    const fastJob = `job-${fast.operationId}`;
    const lockedJob = `job-${locked.operationId}`;
    const answer = await reportAcceptedAtOnce(
      db,
      shop,
      fast.attemptId,
      outcomeInput(fast.operationId, fast.token, "accepted", fastJob),
      noPrompts,
    );
    expect(answer).toEqual({
      operationId: fast.operationId,
      attemptId: fast.attemptId,
      status: "accepted",
      providerJobId: fastJob,
      caseId: null,
      changed: true,
    });
    // Inside a caller's transaction the statement is not taken: the locked path writes.
    const slow = await inTransaction(db, (tx) =>
      reportOutcome(tx, shop, locked.attemptId, outcomeInput(locked.operationId, locked.token, "accepted", lockedJob)),
    );
    expect(slow).toEqual({
      ...answer,
      operationId: locked.operationId,
      attemptId: locked.attemptId,
      providerJobId: lockedJob,
    });
    const a = anonymous(await written(fast.operationId), fast.operationId, fastJob);
    const b = anonymous(await written(locked.operationId), locked.operationId, lockedJob);
    expect(a).toEqual(b);
    expect(a).toMatchObject({
      status: "accepted",
      providerJobId: "JOB",
      attemptJob: "JOB",
      reported: true,
      onOperationChain: true,
    });
    expect(a.audit.map((r: { kind: string }) => r.kind)).toEqual(["permit_accepted"]);
    expect(a.audit[0].evidence).toMatchObject({ outcome: "accepted" });
  });

  it("refuses a stale token with 409 stale_fencing_token and writes nothing", async () => {
    const { operationId, attemptId, token } = await permitted();
    const report = outcomeInput(operationId, token + 1, "accepted", `job-${operationId}`);
    const before = await tableCounts(db);
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
    const refused = await reportOutcome(db, shop, attemptId, report).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "stale_fencing_token" });
    expect(toErrorBody(refused).status).toBe(409);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("answers a second identical report unchanged, with one audit row", async () => {
    const { operationId, attemptId, token } = await permitted();
    const report = outcomeInput(operationId, token, "accepted", `job-${operationId}`);
    expect(await reportOutcome(db, shop, attemptId, report)).toMatchObject({ changed: true, status: "accepted" });
    const before = await tableCounts(db);
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
    expect(await reportOutcome(db, shop, attemptId, report)).toMatchObject({ changed: false, status: "accepted" });
    expect(await tableCounts(db)).toEqual(before);
    // Another job for the same send is refused, not recorded.
    await expect(
      reportOutcome(db, shop, attemptId, outcomeInput(operationId, token, "accepted", `other-${operationId}`)),
    ).rejects.toMatchObject({ code: "conflicting_registration" });
    expect((await written(operationId)).audit.map((r) => r.kind)).toEqual(["permit_accepted"]);
  });

  it("refuses a job another producer's attempt records, and keeps the refusal", async () => {
    const theirs = await permitted(rival);
    const job = `job-${theirs.operationId}`;
    await reportOutcome(db, rival, theirs.attemptId, outcomeInput(theirs.operationId, theirs.token, "accepted", job));
    const mine = await permitted();
    const report = outcomeInput(mine.operationId, mine.token, "accepted", job);
    expect(await reportAcceptedAtOnce(db, shop, mine.attemptId, report, noPrompts)).toBeNull();
    const before = await tableCounts(db);
    await expect(reportOutcome(db, shop, mine.attemptId, report)).rejects.toMatchObject({
      code: "provider_job_in_use",
    });
    expect(await tableCounts(db)).toEqual(withRefusalKept(before));
    expect(await written(mine.operationId)).toMatchObject({ status: "live", providerJobId: null, attemptJob: null });
    expect(await written(theirs.operationId)).toMatchObject({
      status: "accepted",
      providerJobId: job,
      attemptJob: job,
    });
  });

  it("refuses a job a parked case records, as the locked path does", async () => {
    const other = parkInput("polling");
    await parkCase(db, shop, other);
    const { operationId, attemptId, token } = await permitted();
    const report = outcomeInput(operationId, token, "accepted", other.providerJobId);
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
    await expect(reportOutcome(db, shop, attemptId, report)).rejects.toMatchObject({ code: "provider_job_in_use" });
  });

  it("leaves a job a provider webhook spoke of to the locked path, which writes the same rows", async () => {
    const { operationId, attemptId, token } = await permitted();
    const job = `job-${operationId}`;
    await db.$executeRaw`
      INSERT INTO provider_webhooks (provider, webhook_id, provider_job_id, status_kind, provider_status, signed_at, outcome, detail)
      VALUES ('replicate', ${`msg-${operationId}`}, ${job}, 'running', 'processing', now(), 'unmatched', '{"kind":"running"}'::jsonb)`;
    const report = outcomeInput(operationId, token, "accepted", job);
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
    expect(await reportOutcome(db, shop, attemptId, report)).toMatchObject({ changed: true, status: "accepted" });
    expect(await written(operationId)).toMatchObject({ status: "accepted", providerJobId: job, attemptJob: job });
  });

  it("leaves a job ID the operation's provider could not issue to the locked path, which refuses it", async () => {
    const { operationId, attemptId, token } = await permitted(shop, {
      provider: "veo",
      model: "veo-3.1-generate-preview",
    });
    const report = outcomeInput(operationId, token, "accepted", "not-an-operation-name");
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
    await expect(reportOutcome(db, shop, attemptId, report)).rejects.toMatchObject({ code: "invalid_request" });
  });

  it("ends 20 concurrent identical reports in one acceptance and one audit row", async () => {
    const { operationId, attemptId, token } = await permitted();
    const report = outcomeInput(operationId, token, "accepted", `job-${operationId}`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => reportOutcome(wide, shop, attemptId, report)));
    expect(answers.filter((a) => a.changed)).toHaveLength(1);
    expect(answers.every((a) => a.status === "accepted" && a.providerJobId === `job-${operationId}`)).toBe(true);
    expect((await written(operationId)).audit.map((r) => r.kind)).toEqual(["permit_accepted"]);
  });

  it("gives a job two permits race for to one of them; the other falls back and is refused", async () => {
    const job = `raced-${Date.now()}`;
    const permits = await Promise.all(Array.from({ length: 6 }, () => permitted()));
    const results = await Promise.allSettled(
      permits.map((p) => reportOutcome(wide, shop, p.attemptId, outcomeInput(p.operationId, p.token, "accepted", job))),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) {
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: "provider_job_in_use" });
    }
    const rows = await Promise.all(permits.map((p) => written(p.operationId)));
    expect(rows.filter((r) => r.status === "accepted" && r.attemptJob === job)).toHaveLength(1);
    expect(rows.filter((r) => r.status === "live" && r.attemptJob === null)).toHaveLength(5);
    expect(await db.attempt.count({ where: { providerJobId: job } })).toBe(1);
  });

  it("leaves a permit the deadline sweep parked to the locked path", async () => {
    const { operationId, attemptId, token } = await permitted();
    // As the sweep leaves it when the deadline passed first: no longer live.
    await db.sendPermit.updateMany({ where: { operation: { operationId } }, data: { status: "uncertain" } });
    const report = outcomeInput(operationId, token, "accepted", `job-${operationId}`);
    expect(await reportAcceptedAtOnce(db, shop, attemptId, report, noPrompts)).toBeNull();
  });
});
