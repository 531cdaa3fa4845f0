import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import * as casesRoute from "@/app/api/v1/cases/route";
import { env } from "@/lib/env";
import type { JobStatus } from "@/lib/providers/types";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { confirmSuggestion } from "@/lib/services/case/confirm-suggestion";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { recordObservation } from "@/lib/services/claim/record-observation";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts, withRefusalKept } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// The server action below reads the signed-in user; here that is whoever the test says.
const session = vi.hoisted(() => ({ user: null as unknown }));
vi.mock("@/lib/auth/session", () => ({ currentUser: async () => session.user }));
const { addNoteAction } = await import("@/lib/actions/case-actions");
const notesRoute = await import("@/app/api/v1/cases/[id]/notes/route");
const caseRoute = await import("@/app/api/v1/cases/[id]/route");

const { db, url } = openTestDb();
const shopA = producer("studio-a");
const shopB = producer("studio-b");

type Refusal = { code: string; message: string; status: number };
async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as Refusal | null;
  if (!error) throw new Error("expected a refusal");
  return { code: error.code, message: error.message, status: error.status };
}

/** What the database answers a writer that bypasses the services: a SQLSTATE, or undefined if it took the write. */
async function sqlState(sql: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await client.end();
  }
}

describe("one provider job, one operation (rule 11)", () => {
  for (const stage of ["polling", "delivery"] as const) {
    it(`two producers, one ${stage} job: the second park is 409 and tells it nothing of the first`, async () => {
      const first = parkInput(stage);
      const job = first.providerJobId ?? "";
      const a = await parkCase(db, shopA, first);
      const before = await tableCounts(db);

      const second = parkInput(stage, { providerJobId: job });
      const refused = await refusal(parkCase(db, shopB, second));
      expect(refused).toMatchObject({ code: "provider_job_in_use", status: 409 });
      for (const detail of [a.caseId, first.operationId, shopA.name]) expect(refused.message).not.toContain(detail);
      expect(await tableCounts(db)).toEqual(before);

      // The owner's own replay stays idempotent.
      expect(await parkCase(db, shopA, first)).toMatchObject({ caseId: a.caseId, created: false });
      // Over HTTP, the same refusal in the error shape every client reads.
      const key = (await createAccessToken(db, "cli", { kind: "api_key", name: shopB.name })).secret;
      const http = await callRoute(casesRoute.POST, {
        token: key,
        body: { ...second, operationId: `${second.operationId}-http` },
      });
      expect(http.status).toBe(409);
      expect(http.json.error?.code).toBe("provider_job_in_use");
      expect(JSON.stringify(http.json)).not.toContain(a.caseId);
    });
  }

  it("eight producers parking one job at once: one case, seven clean refusals", async () => {
    const job = `raced-job-${Date.now()}`;
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        parkCase(db, producer(`racer-${i}`), parkInput("polling", { providerJobId: job })),
      ),
    );
    const created = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as Refusal).code] : []));
    expect(created).toHaveLength(1);
    expect(refused).toEqual(Array(7).fill("provider_job_in_use"));
    expect(await db.attempt.count({ where: { providerJobId: job } })).toBe(1);
    expect(await db.case.count({ where: { providerJobId: job } })).toBe(1);
  });

  it("only one hold can ever be tied to a job: the database refuses every other path", async () => {
    const first = parkInput("polling");
    const job = first.providerJobId ?? "";
    const a = await parkCase(db, shopA, first);
    const b = await parkCase(db, shopB, parkInput("submission_uncertain"));
    const caseA = await db.case.findUniqueOrThrow({ where: { id: a.caseId } });
    const caseB = await db.case.findUniqueOrThrow({ where: { id: b.caseId } });

    // A second attempt naming the job, even one claiming another provider (the operation's wins).
    for (const provider of ["replicate", "fal"]) {
      expect(
        await sqlState(`INSERT INTO attempts (operation_ref, attempt_id, kind, provider, provider_job_id)
                        VALUES ('${caseB.operationRef}', 'sneak-${provider}', 'original', '${provider}', '${job}')`),
      ).toBe("23505");
    }
    // A second hold on the owning attempt.
    expect(
      await sqlState(`INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency)
                      VALUES ('second', '${shopB.name}', '${caseB.id}', '${caseA.attemptRef}', 1, 'USD')`),
    ).toBe("23505");
    // Another case polling the job on its own attempt, or on the owner's attempt.
    expect(
      await sqlState(`UPDATE cases SET stage = 'polling', provider_job_id = '${job}' WHERE id = '${caseB.id}'`),
    ).toBe("23503");
    expect(
      await sqlState(`UPDATE cases SET stage = 'polling', provider_job_id = '${job}', attempt_ref = '${caseA.attemptRef}'
                      WHERE id = '${caseB.id}'`),
    ).toBe("23503");

    const holds = await db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM holds h JOIN attempts t ON t.id = h.attempt_ref WHERE t.provider_job_id = ${job}`;
    expect(Number(holds[0]?.n)).toBe(1);
  });

  it("after approvals and the provider's completion, exactly one hold is settled on the job", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const first = parkInput("polling");
    const job = first.providerJobId ?? "";
    const a = await parkCase(db, shopA, first);
    const b = await parkCase(db, shopB, parkInput("submission_uncertain"));
    // Producer B's mistake reaches the job by each door; each is refused.
    expect((await refusal(parkCase(db, shopB, parkInput("polling", { providerJobId: job })))).code).toBe(
      "provider_job_in_use",
    );
    const attach = { verdict: "attach" as const, providerJobId: job, evidence: "looks like ours" };
    expect((await refusal(reconcileCase(db, reviewer, b.caseId, attach))).code).toBe("provider_job_in_use");

    await approveCase(db, reviewer, a.caseId, { action: "resume_poll", evidence: "job is known" });
    const w = worker();
    const claimed = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === a.caseId);
    if (!claimed) throw new Error("not claimed");
    const completed: JobStatus = { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: false };
    expect(await recordObservation(db, w, proofOf(claimed, w.workerId), completed)).toBe(true);

    const settled = await db.$queryRaw<{ case_id: string }[]>`
      SELECT h.case_id::text FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref
      JOIN attempts t ON t.id = h.attempt_ref WHERE e.kind = 'settle' AND t.provider_job_id = ${job}`;
    expect(settled).toEqual([{ case_id: a.caseId }]);
    expect(await db.hold.findFirstOrThrow({ where: { caseId: b.caseId } })).toMatchObject({ status: "held" });
  });

  it("a reviewer attaching an owned job is refused with the owning case; nothing changes", async () => {
    const owner = parkInput("polling");
    const a = await parkCase(db, shopA, owner);
    const b = await parkCase(db, shopB, parkInput("submission_uncertain"));
    const reviewer = await makeUser(db, ["reviewer"]);
    const before = await tableCounts(db);

    const refused = await refusal(
      reconcileCase(db, reviewer, b.caseId, {
        verdict: "attach",
        providerJobId: owner.providerJobId ?? "",
        evidence: "found it in the provider's dashboard",
      }),
    );
    expect(refused).toMatchObject({ code: "provider_job_in_use", status: 409 });
    // People know a case by its operation ID; the path is there to follow.
    expect(refused.message).toContain(`operation ${owner.operationId}`);
    expect(refused.message).toContain(`/cases/${a.caseId}`);
    expect(await tableCounts(db)).toEqual(withRefusalKept(before));
    expect(await db.case.findUniqueOrThrow({ where: { id: b.caseId } })).toMatchObject({
      stage: "submission_uncertain",
      providerJobId: null,
    });
  });

  it("confirming a suggestion of an owned job is refused with the owning case; the suggestion stays open", async () => {
    const owner = parkInput("delivery");
    const a = await parkCase(db, shopA, owner);
    const b = await parkCase(db, shopB, parkInput("submission_uncertain"));
    // Written as an earlier search (before the job was attributed) would have left it.
    const suggestion = await db.reconciliationSuggestion.create({
      data: {
        caseId: b.caseId,
        episode: 1,
        providerJobId: owner.providerJobId ?? "",
        confidence: 90,
        matched: ["model"],
        providerStatus: "succeeded",
        jobCreatedAt: new Date(),
      },
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    // The case page says whose the job is (and offers no confirm for it).
    const detail = await getCase(db, reviewer, b.caseId, env());
    expect(detail.suggestions).toEqual([
      expect.objectContaining({ id: suggestion.id, ownerCaseId: a.caseId, ownerOperationId: owner.operationId }),
    ]);
    const refused = await refusal(
      confirmSuggestion(db, reviewer, b.caseId, { suggestionId: suggestion.id, evidence: "same prompt and time" }),
    );
    expect(refused).toMatchObject({ code: "provider_job_in_use", status: 409 });
    expect(refused.message).toContain(`operation ${owner.operationId}`);
    expect(refused.message).toContain(`/cases/${a.caseId}`);
    expect(await db.reconciliationSuggestion.findUniqueOrThrow({ where: { id: suggestion.id } })).toMatchObject({
      status: "open",
    });
    expect(await db.decision.count({ where: { caseId: b.caseId } })).toBe(0);
    // The refused attach is kept for both reviewers once (decision 039), though it came from inside
    // the confirmation's own transaction.
    const kase = await db.case.findUniqueOrThrow({ where: { id: b.caseId } });
    const conflicts = await db.jobClaimConflict.findMany({
      where: { claimantAttemptRef: kase.attemptRef, outcome: "refused" },
    });
    expect(conflicts).toMatchObject([{ door: "attach" }]);
  });

  it("a new episode of the same operation names its own job; it cannot reuse an earlier attempt's job", async () => {
    const failed = parkInput("generation_failed");
    const { caseId } = await parkCase(db, shopA, failed);
    const reviewer = await makeUser(db, ["reviewer"]);
    await acceptFailure(db, reviewer, caseId, { evidence: "the provider reported a failure" });

    const retry = {
      ...failed,
      attemptId: `${failed.operationId}-a2`,
      stage: "polling" as const,
      providerJobId: `job-${failed.operationId}-a2`,
      hold: { ...failed.hold, holdId: `${failed.hold.holdId}-2` },
    };
    expect(await parkCase(db, shopA, retry)).toMatchObject({ caseId, created: true });
    expect(await parkCase(db, shopA, retry)).toMatchObject({ caseId, created: false });

    // Another producer cannot take the new episode's job either.
    const stolen = await refusal(parkCase(db, shopB, parkInput("polling", { providerJobId: retry.providerJobId })));
    expect(stolen.code).toBe("provider_job_in_use");
  });

  it("replaying an open registration with another amount, currency, hold, provider or model is 409 naming the fields", async () => {
    const input = parkInput("polling", { hold: { holdId: "replay-hold", amountMicros: 250_000, currency: "USD" } });
    input.hold.holdId = `hold-${input.operationId}`;
    await parkCase(db, shopA, input);
    const before = await tableCounts(db);
    const cases: [Partial<typeof input>, string][] = [
      [{ hold: { ...input.hold, amountMicros: 990_000 } }, "hold.amountMicros"],
      [{ hold: { ...input.hold, currency: "EUR" } }, "hold.currency"],
      [{ hold: { ...input.hold, holdId: `${input.hold.holdId}-other` } }, "hold.holdId"],
      [{ provider: "fal" }, "provider"],
      [{ model: "another-model" }, "model"],
    ];
    for (const [change, field] of cases) {
      const refused = await refusal(parkCase(db, shopA, { ...input, ...change }));
      expect(refused).toMatchObject({ code: "conflicting_registration", status: 409 });
      expect(refused.message).toContain(field);
      for (const value of ["990000", "EUR", "-other", "fal", "another-model"])
        expect(refused.message).not.toContain(value);
    }
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe("text PostgreSQL cannot store", () => {
  const lone = "\ud800";

  it("a lone surrogate in a park body's value or key is 400 invalid_request and stores nothing", async () => {
    const key = (await createAccessToken(db, "cli", { kind: "api_key", name: shopA.name })).secret;
    const before = await tableCounts(db);
    const input = parkInput("delivery");
    for (const body of [
      { ...input, evidence: { ...input.evidence, summary: `download failed ${lone}` } },
      { ...input, request: { [`prompt${lone}`]: "a cat" } },
      { ...input, evidence: { ...input.evidence, details: { nested: ["ok", { deep: "\udfff" }] } } },
    ]) {
      const res = await callRoute(casesRoute.POST, { token: key, body });
      expect(res.status).toBe(400);
      expect(res.json.error?.code).toBe("invalid_request");
    }
    expect(await tableCounts(db)).toEqual(before);
  });

  it("a lone surrogate in a note, over the API and through the console's server action, is 400", async () => {
    const { caseId } = await parkCase(db, shopA, parkInput("submission_uncertain"));
    const reviewer: UserActor = await makeUser(db, ["reviewer"]);
    const token = (await createAccessToken(db, reviewer, { kind: "personal", name: "cli" })).secret;
    const before = await tableCounts(db);

    const api = await callRoute(notesRoute.POST, {
      token,
      params: { id: caseId },
      body: { text: `seen ${lone} twice` },
    });
    expect(api.status).toBe(400);
    expect(api.json.error?.code).toBe("invalid_request");

    // In a path parameter too, before any lookup. (A URL's query cannot carry one: URL encoding
    // turns a lone surrogate into U+FFFD, which is ordinary text.)
    const path = await callRoute(caseRoute.GET, { token, params: { id: `${caseId}${lone}` } });
    expect([path.status, path.json.error?.code]).toEqual([400, "invalid_request"]);

    session.user = reviewer;
    const action = await addNoteAction({ caseId, input: { text: `seen \udc00 twice` } });
    expect(action).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    expect(await tableCounts(db)).toEqual(before);

    // A well-formed pair is ordinary text and passes the same door.
    const fine = await callRoute(notesRoute.POST, { token, params: { id: caseId }, body: { text: "seen 🎬 twice" } });
    expect(fine.status).toBeLessThan(300);
  });
});

describe("prompts in request summaries", () => {
  it("are stored as a SHA-256 digest and a length by default", async () => {
    const prompt = "a lighthouse at dusk, slow dolly zoom";
    const { caseId } = await parkCase(db, shopA, parkInput("polling", { request: { prompt, seconds: 5 } }));
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId }, include: { operation: true } });
    expect(row.operation.requestSummary).toEqual({
      prompt: { sha256: createHash("sha256").update(prompt).digest("hex"), length: prompt.length },
      seconds: 5,
    });
    const everything = await db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM operations WHERE request_summary::text LIKE '%lighthouse%')
          OR EXISTS (SELECT 1 FROM audit_events WHERE coalesce(evidence::text, '') LIKE '%lighthouse%') AS found`;
    expect(everything[0]?.found).toBe(false);
  });
});
