import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRedactedJson, REDACTED_LABEL } from "@/lib/audit/canonical";
import { verifyAuditChains } from "@/lib/audit/verify-chain";
import { env } from "@/lib/env";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { dryRunRetention, saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention } from "@/lib/services/retention/run-retention";
import { localStorage } from "@/lib/storage/local-storage";
import { makeUser, outcomeInput, parkInput, permitInput, producer, worker } from "./fixtures";
import { backdateResolution } from "./helpers/backdate-resolution";
import { openTestDb } from "./setup/test-db";

// DESIGN rule 20: every kind of record ends under the retention policies, not only cases.
const { db, url } = openTestDb();
const verifier = new pg.Client({ connectionString: url });
const shop = producer("day-shop");
const bot = worker();
let storage: ReturnType<typeof localStorage>;
const run = () => runRetention(db, storage, bot, { now: new Date(), deadline: Date.now() + 10_000 });
const marked = (value: unknown) => isRedactedJson(JSON.stringify(value));

/** An operation that only ever went through its permit: issued with a prompt, accepted, completed. */
async function permitOnlyOperation() {
  const { operationId, input } = permitInput({ request: { prompt: "a red fox in the snow", seed: 7 } });
  const permit = await requestPermit(db, shop, operationId, input, env());
  if (permit.status !== "permitted") throw new Error(`expected a permit, got ${permit.status}`);
  const job = `job-${operationId}`;
  await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, permit.permit.token, "accepted", job));
  await reportOutcome(db, shop, input.attemptId, {
    ...outcomeInput(operationId, permit.permit.token, "completed", job),
    evidence: { summary: "the fox video is ready", observedAt: "2026-12-02T10:00:00Z" },
  });
  const operation = await db.operation.findFirstOrThrow({ where: { producer: shop.name, operationId } });
  const sendPermit = await db.sendPermit.findFirstOrThrow({ where: { operationRef: operation.id } });
  const webhook = await db.providerWebhook.create({
    data: {
      provider: "replicate",
      webhookId: `wh-${operationId}`,
      providerJobId: job,
      statusKind: "completed",
      signedAt: new Date(),
      outcome: "permit_reported",
      note: "the fox video",
      permitRef: sendPermit.id,
      detail: { kind: "completed", outputs: [{ url: "https://cdn.example/fox.mp4" }] },
    },
  });
  const conflict = await db.jobClaimConflict.create({
    data: {
      provider: "replicate",
      providerJobId: job,
      door: "report",
      outcome: "contested",
      claimantAttemptRef: sendPermit.attemptRef,
      reason: "another operation reported this job",
      evidence: { summary: "the fox video, claimed twice" },
    },
  });
  return { operationId, operation, sendPermit, webhook, conflict };
}

/** Moves an operation's every time back by `days`, as if it had all happened then. */
async function backdate(operationRef: string, days: number) {
  await db.$executeRaw`UPDATE operations SET created_at = created_at - make_interval(days => ${days}) WHERE id = ${operationRef}::uuid`;
  await db.$executeRaw`
    UPDATE send_permits SET created_at = created_at - make_interval(days => ${days}),
                            reported_at = reported_at - make_interval(days => ${days})
     WHERE operation_ref = ${operationRef}::uuid`;
}

const permitEvents = (operationId: string) =>
  db.auditEvent.findMany({
    where: { caseId: null, kind: { startsWith: "permit_" }, after: { path: ["operationId"], equals: operationId } },
  });

beforeAll(async () => {
  await verifier.connect();
  storage = localStorage(await mkdtemp(path.join(tmpdir(), "retention-records-")));
  const admin = await makeUser(db, ["admin"]);
  await saveRetentionPolicy(db, admin, { producer: null, days: 30 });
  await saveRetentionPolicy(db, admin, { producer: shop.name, days: 1 });
});
afterAll(async () => {
  await verifier.end();
});

describe("an operation that never became a case, under a 1-day policy", () => {
  it("keeps its summary, reports, webhooks and audit text within the day", async () => {
    const { operationId, operation, sendPermit, webhook } = await permitOnlyOperation();
    await run();
    const after = await db.operation.findUniqueOrThrow({ where: { id: operation.id } });
    expect(after.redactedAt).toBeNull();
    expect(JSON.stringify(after.requestSummary)).toContain("sha256");
    expect(marked((await db.sendPermit.findUniqueOrThrow({ where: { id: sendPermit.id } })).lastReport)).toBe(false);
    expect(marked((await db.providerWebhook.findUniqueOrThrow({ where: { id: webhook.id } })).detail)).toBe(false);
    expect((await permitEvents(operationId)).some((e) => JSON.stringify(e.evidence).includes("fox video"))).toBe(true);
  });

  it("is redacted after the day: summary, permit report, webhook body, conflict evidence and audit text; facts stay", async () => {
    const { operationId, operation, sendPermit, webhook, conflict } = await permitOnlyOperation();
    await backdate(operation.id, 2);
    // Nothing is evicted silently: the dry run names it first.
    expect((await dryRunRetention(db, await makeUser(db, ["admin"]))).operations).toBe(1);
    const result = await run();
    expect(result.operations).toBeGreaterThanOrEqual(1);

    const after = await db.operation.findUniqueOrThrow({ where: { id: operation.id } });
    expect(after.redactedAt).not.toBeNull();
    expect(marked(after.requestSummary)).toBe(true);
    expect(after.requestFingerprint).toBe(operation.requestFingerprint);
    const permit = await db.sendPermit.findUniqueOrThrow({ where: { id: sendPermit.id } });
    expect(marked(permit.lastReport)).toBe(true);
    expect(permit.status).toBe("completed");
    const hook = await db.providerWebhook.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(marked(hook.detail)).toBe(true);
    expect(hook.note).toBe(REDACTED_LABEL);
    expect(hook.providerJobId).toBe(webhook.providerJobId);
    expect(marked((await db.jobClaimConflict.findUniqueOrThrow({ where: { id: conflict.id } })).evidence)).toBe(true);
    const events = await permitEvents(operationId);
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.evidence !== null && !marked(e.evidence)).map((e) => e.kind)).toEqual([]);
    const record = await db.auditEvent.findFirstOrThrow({
      where: { kind: "operation_redacted", after: { path: ["operationId"], equals: operationId } },
    });
    expect(record.evidence).toMatchObject({ retentionDays: 1, fields: { requestSummary: 1, permitReports: 1 } });
    expect((await verifyAuditChains(verifier)).broken).toEqual([]);

    // Done once: a second run leaves it alone.
    const again = await run();
    expect(again.operations).toBe(0);
  });

  it("is left alone while a permit is still live, however old", async () => {
    const { operationId, input } = permitInput({ request: { prompt: "a slow snail" } });
    const permit = await requestPermit(db, shop, operationId, input, env());
    expect(permit.status).toBe("permitted");
    const operation = await db.operation.findFirstOrThrow({ where: { producer: shop.name, operationId } });
    await backdate(operation.id, 5);
    await run();
    expect((await db.operation.findUniqueOrThrow({ where: { id: operation.id } })).redactedAt).toBeNull();
    // Not even the app's own role can redact it early: the owner's function refuses.
    await expect(db.$queryRaw`SELECT * FROM audit_redact_operation(${operation.id}::uuid)`).rejects.toThrow(
      /still open/,
    );
  });
  it("ends one producer's operation and leaves another producer's with the same ID, each chain verifying", async () => {
    // Both shops name the operation alike; each has its own operation row and its own audit chain
    // (decision 059), and only the 1-day shop's policy has ended its records.
    const other = producer("month-shop");
    const { operationId, input } = permitInput({ request: { prompt: "a shared name, two owners" } });
    const refs: Record<string, string> = {};
    for (const owner of [shop, other]) {
      const permit = await requestPermit(db, owner, operationId, input, env());
      if (permit.status !== "permitted") throw new Error(`expected a permit, got ${permit.status}`);
      const job = `job-${owner.name}-${operationId}`;
      await reportOutcome(db, owner, input.attemptId, outcomeInput(operationId, permit.permit.token, "accepted", job));
      await reportOutcome(db, owner, input.attemptId, {
        ...outcomeInput(operationId, permit.permit.token, "completed", job),
        evidence: { summary: `delivered to ${owner.name}`, observedAt: "2026-12-02T10:00:00Z" },
      });
      const operation = await db.operation.findFirstOrThrow({ where: { producer: owner.name, operationId } });
      await backdate(operation.id, 2);
      refs[owner.name] = operation.id;
    }
    await run();

    const ended = await db.operation.findUniqueOrThrow({ where: { id: refs[shop.name] } });
    const kept = await db.operation.findUniqueOrThrow({ where: { id: refs[other.name] } });
    expect(ended.redactedAt).not.toBeNull();
    expect(kept.redactedAt).toBeNull();
    expect(marked(kept.requestSummary)).toBe(false);
    const texts = async (ref: string | undefined) =>
      (await db.auditEvent.findMany({ where: { operationRef: ref, kind: { startsWith: "permit_" } } })).map((e) =>
        JSON.stringify(e.evidence),
      );
    expect((await texts(refs[other.name])).some((text) => text.includes("delivered to month-shop"))).toBe(true);
    expect((await texts(refs[shop.name])).some((text) => text.includes("delivered to"))).toBe(false);
    expect(
      await db.auditEvent.count({
        where: { kind: "operation_redacted", after: { path: ["producer"], equals: other.name } },
      }),
    ).toBe(0);
    expect((await verifyAuditChains(verifier)).broken).toEqual([]);
  });
});

describe("records that belong to a case or to nothing", () => {
  it("a redacted case takes its observations' output URLs and its webhooks with it", async () => {
    const admin = await makeUser(db, ["admin", "reviewer", "finance"]);
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const observation = await db.providerObservation.create({
      data: {
        caseId,
        attemptRef: kase.attemptRef,
        kind: "completed",
        outputs: [{ url: "https://cdn.example/cat.mp4" }],
        detail: { note: "cat" },
      },
    });
    const webhook = await db.providerWebhook.create({
      data: {
        provider: "replicate",
        webhookId: `wh-${caseId}`,
        providerJobId: `job-${caseId}`,
        statusKind: "completed",
        signedAt: new Date(),
        outcome: "observed",
        caseRef: caseId,
        detail: { outputs: [{ url: "https://cdn.example/cat.mp4" }] },
      },
    });
    await acceptFailure(db, admin, caseId, { evidence: "accepted" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, admin, hold.id, { kind: "release", note: "no charge", evidence: "none" });
    await backdateResolution(caseId, 2);
    await run();
    const seen = await db.providerObservation.findUniqueOrThrow({ where: { id: observation.id } });
    expect(marked(seen.outputs)).toBe(true);
    expect(marked(seen.detail)).toBe(true);
    expect(seen.kind).toBe("completed");
    expect(marked((await db.providerWebhook.findUniqueOrThrow({ where: { id: webhook.id } })).detail)).toBe(true);
  });

  it("a resolved case waits while a later send of its operation is recent, then ends with it", async () => {
    const park = parkInput("generation_failed", { providerJobId: undefined });
    const { caseId } = await parkCase(db, shop, park);
    const reviewer = await makeUser(db, ["reviewer"]);
    const { requestId } = await requestReplacement(db, reviewer, caseId, { evidence: "content filter" });
    const finance = await makeUser(db, ["finance"]);
    const authorized = await authorizeReplacement(db, finance, requestId, { evidence: "ok" });
    const first = await db.hold.findFirstOrThrow({ where: { caseId, holdId: park.hold.holdId } });
    await resolveHold(db, finance, first.id, { kind: "release", note: "no charge", evidence: "none" });
    // The replacement went out under its permit and completed today; the case resolved days ago.
    const job = `job-${park.operationId}-replacement`;
    const report = outcomeInput(park.operationId, authorized.permit.token, "completed", job);
    await reportOutcome(db, shop, authorized.attemptId, {
      ...report,
      evidence: { summary: "the new video", observedAt: new Date().toISOString() },
    });
    await backdateResolution(caseId, 2);
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ state: "resolved" });
    await run();
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).redactedAt).toBeNull();
    const sent = await db.sendPermit.findFirstOrThrow({ where: { attempt: { attemptId: authorized.attemptId } } });
    expect(marked(sent.lastReport)).toBe(false);
    // Once its send is as old as the policy, the operation's records end together.
    await db.$executeRaw`UPDATE send_permits SET created_at = now() - interval '2 days', reported_at = now() - interval '2 days'
                          WHERE id = ${sent.id}::uuid`;
    await run();
    expect((await db.case.findUniqueOrThrow({ where: { id: caseId } })).redactedAt).not.toBeNull();
    expect(marked((await db.sendPermit.findUniqueOrThrow({ where: { id: sent.id } })).lastReport)).toBe(true);
  });

  it("a webhook that matched nothing keeps its body for the global policy, then loses it", async () => {
    const loose = (days: number) =>
      db.providerWebhook.create({
        data: {
          provider: "replicate",
          webhookId: `loose-${days}-${Math.random()}`,
          providerJobId: "job-nobody",
          statusKind: "completed",
          signedAt: new Date(),
          receivedAt: new Date(Date.now() - days * 86_400_000),
          outcome: "unmatched",
          detail: { outputs: [{ url: "https://cdn.example/stranger.mp4" }] },
        },
      });
    const young = await loose(29);
    const old = await loose(31);
    const result = await run();
    expect(result.webhooks).toBe(1);
    expect(marked((await db.providerWebhook.findUniqueOrThrow({ where: { id: old.id } })).detail)).toBe(true);
    expect(marked((await db.providerWebhook.findUniqueOrThrow({ where: { id: young.id } })).detail)).toBe(false);
  });
});
