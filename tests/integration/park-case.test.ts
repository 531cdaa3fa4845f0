import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPrismaClient } from "@/lib/db/client";
import type { AppError } from "@/lib/errors";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { parkOperation } from "@/lib/services/permit/park-permitted-delivery";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { fingerprint, makeUser, parkInput, producer } from "./fixtures";
import { countRows, dumpAllRows } from "./helpers/tables";
import { openTestDb, ownerUrl } from "./setup/test-db";

// Rule 1 (idempotent registration) and rule 10 (sanitise at the door), through parkCase.
const { db, url } = openTestDb();
const shop = producer();
const codeOf = (error: unknown) => (error as AppError | undefined)?.code;
const refused = (promise: Promise<unknown>) => promise.then(() => "no error", codeOf);

/** Waits until `count` sessions on this database are blocked on a lock (or gives up after 20 s). */
async function waitForLockWaiters(count: number) {
  for (let i = 0; i < 400; i++) {
    const rows = await db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if ((rows[0]?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function resolvedFailure(input: ParkCaseInput) {
  const reviewer = await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(db, shop, input);
  await acceptFailure(db, reviewer, caseId, { evidence: "provider reported a content-policy failure" });
  return caseId;
}

describe("parkCase", () => {
  it("re-registering the same facts returns the case with created: false and writes nothing", async () => {
    const input = parkInput("polling");
    const first = await parkCase(db, shop, input);
    expect(first.created).toBe(true);
    const before = await countRows(db);
    for (let i = 0; i < 3; i++) {
      expect(await parkCase(db, shop, input)).toEqual({ ...first, created: false });
    }
    // A replay with fresh evidence text is the same registration.
    const replay = { ...input, evidence: { ...input.evidence, summary: "retried the dead-letter call" } };
    expect(await parkCase(db, shop, replay)).toEqual({ ...first, created: false });
    expect(await countRows(db)).toEqual(before);
  });

  it("an identical re-registration is answered by a read at every stage: a writer's table lock does not hold it", async () => {
    // EXCLUSIVE mode (the tables' owner may take it) lets readers through and stops every writer,
    // including a write statement that would insert nothing, and a permit's row lock (FOR UPDATE).
    // Before replays were answered by a read, each one waited here; before decision 083 a park at
    // delivery first looked for its attempt's permit under such a lock, and waited too.
    const inputs = (["polling", "submission_uncertain", "delivery", "generation_failed"] as const).map((stage) =>
      parkInput(stage),
    );
    const firsts = [];
    for (const input of inputs) firsts.push(await parkOperation(db, shop, input));
    const locker = new pg.Client({ connectionString: ownerUrl() });
    await locker.connect();
    let replays: Promise<unknown> = Promise.resolve();
    try {
      await locker.query("BEGIN");
      await locker.query(
        "LOCK TABLE operations, attempts, cases, holds, ledger_entries, audit_events, send_permits IN EXCLUSIVE MODE",
      );
      let settled = false;
      const answered = Promise.all(inputs.map((input) => parkOperation(db, shop, input))).finally(() => {
        settled = true;
      });
      replays = answered.catch(() => {});
      let waited = false;
      for (let i = 0; i < 200 && !settled && !waited; i++) {
        const [row] = await db.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        waited = (row?.n ?? 0) > 0;
        if (!waited) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waited).toBe(false);
      expect(await answered).toEqual(firsts.map((first) => ({ ...first, created: false })));
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
      await replays;
    }
  });

  it("a replay of the original registration is recognised after the case moved on (reconciled)", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const input = parkInput("submission_uncertain");
    const { caseId } = await parkCase(db, shop, input);
    await reconcileCase(db, reviewer, caseId, { verdict: "attach", providerJobId: "found-job", evidence: "matched" });
    const before = await countRows(db);
    expect(await parkCase(db, shop, input)).toEqual({ caseId, created: false, stage: "polling", state: "parked" });
    expect(await countRows(db)).toEqual(before);
  });

  it("different facts for an open case are refused with conflicting_registration and change no row", async () => {
    const input = parkInput("polling");
    const { caseId } = await parkCase(db, shop, input);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const before = await countRows(db);
    const variants: Partial<ParkCaseInput>[] = [
      { providerJobId: "another-job" },
      { requestFingerprint: fingerprint("another request") },
      { attemptId: `${input.attemptId}-retry`, hold: { ...input.hold, holdId: `${input.hold.holdId}-2` } },
      { stage: "delivery" },
      { stage: "generation_failed" },
    ];
    for (const variant of variants) {
      expect(await refused(parkCase(db, shop, { ...input, ...variant }))).toBe("conflicting_registration");
    }
    expect(await countRows(db)).toEqual(before);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toEqual(row);
  });

  it("a resolved case re-parked with a new attempt opens episode 2 on the same case; the timeline keeps both", async () => {
    const input = parkInput("generation_failed");
    const caseId = await resolvedFailure(input);
    const second = parkInput("polling", {
      operationId: input.operationId,
      attemptId: `${input.attemptId}-resubmitted`,
      providerJobId: "job-second",
      requestFingerprint: input.requestFingerprint,
      hold: { holdId: `${input.hold.holdId}-2`, amountMicros: 250_000, currency: "USD" },
    });
    const reopened = await parkCase(db, shop, second);
    expect(reopened).toEqual({ caseId, created: true, stage: "polling", state: "parked" });
    expect(await parkCase(db, shop, second)).toEqual({ ...reopened, created: false });
    // The episode-1 registration is no longer the case's registration, so it is a conflict now.
    expect(await refused(parkCase(db, shop, input))).toBe("conflicting_registration");

    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row).toMatchObject({
      episode: 2,
      version: 3,
      stage: "polling",
      state: "parked",
      attemptId: second.attemptId,
      providerJobId: "job-second",
      outcome: null,
      resolvedAt: null,
      heldMicros: 350_000n,
    });
    expect(await db.case.count({ where: { operationId: input.operationId } })).toBe(1);
    const holds = await db.hold.findMany({ where: { caseId }, orderBy: { createdAt: "asc" } });
    expect(holds.map((h) => [h.holdId, h.status, h.amountMicros])).toEqual([
      [input.hold.holdId, "held", 100_000n],
      [second.hold.holdId, "held", 250_000n],
    ]);
    const timeline = await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });
    expect(timeline.filter((e) => e.episode === 1).map((e) => e.kind)).toEqual(
      expect.arrayContaining(["parked", "hold_reserved", "failure_accepted"]),
    );
    expect(timeline.filter((e) => e.episode === 2).map((e) => e.kind)).toContain("hold_reserved");
    const reopenedEvent = timeline.find((e) => e.kind === "reopened");
    expect(reopenedEvent?.before).toMatchObject({ state: "resolved", stage: "generation_failed", version: 2 });
    expect(reopenedEvent?.after).toMatchObject({ state: "parked", stage: "polling", version: 3 });
  });

  it("the event that opens episode 2 is recorded under episode 2, like the hold it reserves", async () => {
    const input = parkInput("generation_failed");
    const caseId = await resolvedFailure(input);
    await parkCase(db, shop, {
      ...input,
      attemptId: `${input.attemptId}-2`,
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
    });
    const events = await db.auditEvent.findMany({ where: { caseId, kind: { in: ["reopened", "hold_reserved"] } } });
    expect(events.map((e) => [e.kind, e.episode]).sort()).toEqual([
      ["hold_reserved", 1],
      ["hold_reserved", 2],
      ["reopened", 2],
    ]);
  });

  it("the same attempt cannot come back to a resolved case with other facts for the same stage", async () => {
    const input = parkInput("generation_failed");
    await resolvedFailure(input);
    const before = await countRows(db);
    expect(await refused(parkCase(db, shop, { ...input, requestFingerprint: fingerprint("x") }))).toBe(
      "conflicting_registration",
    );
    expect(await countRows(db)).toEqual(before);
  });

  it("a holdId that already belongs to another attempt is a conflicting registration, not a crash", async () => {
    const first = parkInput("polling");
    await parkCase(db, shop, first);
    const before = await countRows(db);
    // Another operation naming the same hold.
    const other = parkInput("polling", { hold: first.hold });
    expect(await refused(parkCase(db, shop, other))).toBe("conflicting_registration");
    // A new episode whose new attempt reuses the previous attempt's hold.
    const failed = parkInput("generation_failed");
    const caseId = await resolvedFailure(failed);
    const middle = await countRows(db);
    const reuse = { ...failed, attemptId: `${failed.attemptId}-2`, stage: "polling" as const, providerJobId: "j-2" };
    expect(await refused(parkCase(db, shop, reuse))).toBe("conflicting_registration");
    expect(await countRows(db)).toEqual(middle);
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).state).toBe("resolved");
    expect(before.cases).toBe((middle.cases ?? 0) - 1);
  });

  it("evidence and request summaries are stored without credentials, bearer tokens or signed URL queries", async () => {
    const secrets = [
      "abc.def",
      "sk-live-HEADERSECRET",
      "APIKEYSECRET",
      "SIGNATURESECRET",
      "QUERYTOKENSECRET",
      "REQUESTKEYSECRET",
      "COOKIESECRET",
    ];
    const signedUrl = "https://cdn.example.com/v.mp4?X-Amz-Signature=SIGNATURESECRET&token=QUERYTOKENSECRET";
    const input = parkInput("delivery", {
      evidence: {
        summary: `download of ${signedUrl} failed; retried with Bearer abc.def`,
        observedAt: "2026-11-29T10:00:00Z",
        source: "shop-app",
        details: {
          request: { headers: { authorization: "Bearer sk-live-HEADERSECRET", cookie: "s=COOKIESECRET" } },
          api_key: "APIKEYSECRET",
          output: signedUrl,
          log: ["GET", signedUrl, "Authorization: Bearer abc.def"],
          status: 502,
        },
      },
      request: {
        prompt: "a red fox in the snow",
        image_url: signedUrl,
        api_key: "REQUESTKEYSECRET",
        headers: { Authorization: "Bearer abc.def" },
      },
    });
    const { caseId } = await parkCase(db, shop, input);

    const everything = await dumpAllRows(db);
    for (const secret of secrets) expect(everything).not.toContain(secret);

    const row = await db.case.findUniqueOrThrow({ where: { id: caseId }, include: { operation: true } });
    const evidence = row.lastEvidence as { summary: string; details: Record<string, unknown> };
    // What is safe to keep is kept: the asset's address without its query, the status; the prompt
    // only as its digest and length (full prompts are stored only when STORE_PROMPTS=1).
    expect(evidence.summary).toContain("https://cdn.example.com/v.mp4");
    expect(evidence.details.status).toBe(502);
    expect(evidence.details.api_key).toBe("[redacted]");
    expect(String(evidence.details.output)).toMatch(/^https:\/\/cdn\.example\.com\/v\.mp4/);
    const request = row.operation.requestSummary as Record<string, unknown>;
    expect(request.prompt).toEqual({
      sha256: createHash("sha256").update("a red fox in the snow").digest("hex"),
      length: 21,
    });
    expect(JSON.stringify(request)).not.toContain("red fox");
    expect(request.api_key).toBe("[redacted]");
    const parked = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "parked" } });
    expect(parked.evidence).toEqual(row.lastEvidence);
  });

  it("secrets in a new episode's evidence are stripped too", async () => {
    const input = parkInput("generation_failed");
    await resolvedFailure(input);
    await parkCase(db, shop, {
      ...input,
      attemptId: `${input.attemptId}-2`,
      hold: { ...input.hold, holdId: `${input.hold.holdId}-2` },
      evidence: {
        summary: "resubmitted; token=EPISODETOKENSECRET",
        observedAt: "2026-11-29T11:00:00Z",
        details: { apiKey: "EPISODEKEYSECRET", url: "https://x.example.com/a?sig=EPISODESIGSECRET" },
      },
    });
    const everything = await dumpAllRows(db);
    for (const secret of ["EPISODETOKENSECRET", "EPISODEKEYSECRET", "EPISODESIGSECRET"]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("20 concurrent identical registrations make one case, one hold and one reserve entry", async () => {
    const wide = createPrismaClient(url, 20);
    try {
      const input = parkInput("polling");
      const results = await Promise.all(Array.from({ length: 20 }, () => parkCase(wide, shop, input)));
      expect(new Set(results.map((r) => r.caseId)).size).toBe(1);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const caseId = results[0]?.caseId ?? "";
      expect(await db.operation.count({ where: { operationId: input.operationId } })).toBe(1);
      expect(await db.case.count({ where: { operationId: input.operationId } })).toBe(1);
      expect(await db.attempt.count({ where: { attemptId: input.attemptId } })).toBe(1);
      const holds = await db.hold.findMany({ where: { caseId }, include: { entries: true } });
      expect(holds).toHaveLength(1);
      expect(holds[0]?.entries.map((e) => [e.kind, e.amountMicros])).toEqual([["reserve", 100_000n]]);
      expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).heldMicros).toBe(100_000n);
      const kinds = (await db.auditEvent.findMany({ where: { caseId } })).map((e) => e.kind).sort();
      expect(kinds).toEqual(["hold_reserved", "parked"]);
    } finally {
      await wide.$disconnect();
    }
  });

  it("20 concurrent identical registrations of an authorised replacement attempt all get the case back", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const input = parkInput("generation_failed");
    const { caseId } = await parkCase(db, shop, input);
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    const { attemptId, holdId } = await authorizeReplacement(db, finance, requestId, { evidence: "approved" });
    const registration = parkInput("polling", {
      operationId: input.operationId,
      attemptId,
      providerJobId: "job-of-the-replacement",
      requestFingerprint: input.requestFingerprint,
      hold: { holdId, amountMicros: 100_000, currency: "USD" },
    });
    const attempt = await db.attempt.findFirstOrThrow({ where: { attemptId } });

    // The producer's retries arrive together. A gate holding the attempt row makes them overlap
    // for certain: every request has read the resolved case before the first one commits.
    const gate = new pg.Client({ connectionString: url });
    await gate.connect();
    const wide = createPrismaClient(url, 20);
    try {
      await gate.query("BEGIN");
      await gate.query("SELECT id FROM attempts WHERE id = $1 FOR UPDATE", [attempt.id]);
      const parks = Promise.allSettled(Array.from({ length: 20 }, () => parkCase(wide, shop, registration)));
      await waitForLockWaiters(20);
      await gate.query("COMMIT");
      const outcomes = await parks;
      const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [codeOf(o.reason)] : []));
      expect(failures).toEqual([]);
      const results = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
      expect(results.every((r) => r.caseId === caseId)).toBe(true);
      expect(results.filter((r) => r.created)).toHaveLength(1);
    } finally {
      await gate.end();
      await wide.$disconnect();
    }
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect({ episode: row.episode, version: row.version, heldMicros: row.heldMicros }).toEqual({
      episode: 2,
      version: 3,
      heldMicros: 200_000n,
    });
    expect(await db.auditEvent.count({ where: { caseId, kind: "reopened" } })).toBe(1);
    expect(await db.hold.count({ where: { caseId } })).toBe(2);
  });
});
