import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import * as caseEvidenceRoute from "@/app/api/v1/cases/[id]/evidence/route";
import * as filterEvidenceRoute from "@/app/api/v1/cases/evidence/route";
import { isRedactedJson, REDACTED_LABEL } from "@/lib/audit/canonical";
import { verifyAuditChains } from "@/lib/audit/verify-chain";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { SignedEvidence } from "@/lib/evidence/packet-signature";
import { verifyEvidenceBytes, verifyEvidenceText } from "@/lib/evidence/packet-signature";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { recordObservation } from "@/lib/services/claim/record-observation";
import {
  EVIDENCE_EXPORTED,
  evidencePublicKey,
  exportCaseEvidence,
  exportFilterEvidence,
  FILTER_PACKET_CAP,
} from "@/lib/services/evidence/export-evidence";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { runRetention } from "@/lib/services/retention/run-retention";
import { localStorage } from "@/lib/storage/local-storage";
import { evidenceQueryString } from "@/lib/validation/evidence";
import { makeUser, parkInput, producer, publishedAsset, worker } from "./fixtures";
import { backdateResolution } from "./helpers/backdate-resolution";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Evidence packets (issue 19, part 6; decision 029): one case's facts across its episodes, signed so
// a recipient can tell the packet was not edited, and every export recorded on the case's chain.
const { db, url } = openTestDb();
const shopA = producer("evidence-shop-a");
const shopB = producer("evidence-shop-b");

/**
 * A case with two episodes: a failed generation accepted and its hold released (episode 1), then a
 * new attempt parked for polling, approved, claimed and seen completed, which settles its hold (episode 2).
 */
async function twoEpisodeCase() {
  const reviewer = await makeUser(db, ["reviewer"]);
  const finance = await makeUser(db, ["finance"]);
  const first = parkInput("generation_failed", { hold: { holdId: "", amountMicros: 1_500_000, currency: "USD" } });
  first.hold.holdId = `hold-${first.operationId}`;
  const { caseId } = await parkCase(db, shopA, first);
  await acceptFailure(db, reviewer, caseId, { evidence: "provider reported a content-policy failure" });
  const hold1 = await db.hold.findFirstOrThrow({ where: { caseId } });
  await resolveHold(db, finance, hold1.id, {
    kind: "release",
    note: "no charge on the invoice",
    evidence: "usage export, 0 s",
  });
  const second = parkInput("polling", {
    operationId: first.operationId,
    attemptId: `${first.attemptId}-resubmitted`,
    providerJobId: `job-${first.operationId}-2`,
    requestFingerprint: first.requestFingerprint,
    hold: { holdId: `${first.hold.holdId}-2`, amountMicros: 2_250_000, currency: "USD" },
  });
  await parkCase(db, shopA, second);
  await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "job is still running at the provider" });
  const w = worker();
  const claimed = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === caseId);
  if (!claimed) throw new Error("the case was not claimed");
  await recordObservation(db, w, proofOf(claimed, w.workerId), {
    kind: "completed",
    providerStatus: "succeeded",
    outputs: [{ url: "https://cdn.example.com/out.mp4?token=secret", contentType: "video/mp4" }],
    outputsRemoved: false,
  });
  return { caseId, reviewer, finance };
}

const exportsOf = (caseId: string) =>
  db.auditEvent.findMany({ where: { caseId, kind: EVIDENCE_EXPORTED }, orderBy: { id: "asc" } });

describe("evidence packet of one case", () => {
  it("holds both episodes' facts, money as micros strings, and the audit chain up to its head", async () => {
    const { caseId, reviewer } = await twoEpisodeCase();
    const issued = await exportCaseEvidence(db, reviewer, caseId, env());
    const { packet } = issued.document;
    expect(packet.scope).toEqual({ kind: "case", caseId });
    expect(packet.exportedBy).toEqual({ kind: "user", id: reviewer.userId, label: reviewer.email });
    expect(packet.cases).toHaveLength(1);
    const [item] = packet.cases;
    if (!item) throw new Error("no case in the packet");
    expect(item.case).toMatchObject({ id: caseId, producer: "evidence-shop-a", episode: 2, stage: "delivery" });
    expect(item.attempts.map((a) => a.kind)).toEqual(["original", "original"]);
    expect(item.decisions.map((d) => [d.episode, d.kind])).toEqual([
      [1, "accept_failure"],
      [2, "approve"],
    ]);
    expect(item.decisions[1]).toMatchObject({ reviewerId: reviewer.userId, reviewer: reviewer.email });
    expect(item.recoveryActions).toEqual([
      expect.objectContaining({ episode: 2, kind: "resume_poll", status: "claimed", fencingToken: "1" }),
    ]);
    expect(item.observations).toEqual([
      expect.objectContaining({ kind: "completed", providerStatus: "succeeded", fencingToken: "1" }),
    ]);
    // Signed URL parameters were stripped at the door; the packet carries what was stored.
    expect(JSON.stringify(item.observations)).not.toContain("token=secret");
    expect(item.holds.map((h) => [h.status, h.amount, h.settled, h.released])).toEqual([
      ["released", usd("1500000"), usd("0"), usd("1500000")],
      ["settled", usd("2250000"), usd("2250000"), usd("0")],
    ]);
    expect(item.ledger.map((e) => [e.kind, e.amount.micros])).toEqual([
      ["reserve", "1500000"],
      ["release", "1500000"],
      ["reserve", "2250000"],
      ["settle", "2250000"],
    ]);
    const events = item.timeline.events;
    expect(item.timeline.complete).toBe(true);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.episode))).toEqual(new Set([1, 2]));
    expect(events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(["parked", "failure_accepted", "hold_released", "reopened", "approved", "claimed"]),
    );
    const head = await db.auditChainHead.findUniqueOrThrow({ where: { chainKey: caseId } });
    // The export's own event comes after the packet's head: recorded once the packet was signed.
    expect(item.timeline.head).toEqual({ seq: head.seq - 1, hash: events.at(-1)?.hash });
  });

  it("verifies against the deployment's public key; any edit fails", async () => {
    const { caseId, reviewer } = await twoEpisodeCase();
    const issued = await exportCaseEvidence(db, reviewer, caseId, env());
    const key = evidencePublicKey(reviewer, env());
    const verified = verifyEvidenceText(issued.text, { trustedPublicKeys: [key.publicKey] });
    expect(verified).toMatchObject({ valid: true, keyId: key.keyId, trusted: true, demo: true });
    expect(verified.valid && verified.timeline.intact).toBe(true);
    expect(issued.document.signature.keyId).toBe(key.keyId);

    const cheaper = issued.text.replace('"micros":"2250000"', '"micros":"225000"');
    expect(cheaper).not.toBe(issued.text);
    expect(verifyEvidenceText(cheaper)).toMatchObject({ valid: false, reason: expect.stringMatching(/edited/) });
    const edited = JSON.parse(issued.text) as SignedEvidence;
    const firstEvent = edited.packet.cases[0]?.timeline.events[0];
    if (firstEvent) firstEvent.actorLabel = "someone-else@example.com";
    expect(verifyEvidenceText(JSON.stringify(edited)).valid).toBe(false);
  });

  it("records one audit event on the case per export, naming the packet and its file's SHA-256", async () => {
    const { caseId, finance } = await twoEpisodeCase();
    const issued = await exportCaseEvidence(db, finance, caseId, env());
    const [recorded, ...more] = await exportsOf(caseId);
    expect(more).toEqual([]);
    expect(recorded).toMatchObject({
      actorKind: "user",
      actorId: finance.userId,
      episode: 2,
      evidence: {
        packetId: issued.document.packet.packetId,
        scope: "case",
        cases: 1,
        keyId: issued.document.signature.keyId,
        sha256: issued.sha256,
      },
    });
  });

  it("refuses an operator (forbidden) and an unknown case (not_found), writing nothing", async () => {
    const { caseId } = await twoEpisodeCase();
    const operator = await makeUser(db, ["operator"]);
    const admin = await makeUser(db, ["admin"]);
    const before = await tableCounts(db);
    const refused = await exportCaseEvidence(db, operator, caseId, env()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "forbidden", status: 403 });
    await expect(exportCaseEvidence(db, admin, crypto.randomUUID(), env())).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await tableCounts(db)).toEqual(before);
    expect(await exportsOf(caseId)).toEqual([]);
  });

  it("is served by GET /api/v1/cases/{id}/evidence as the exact signed bytes, and refused to an operator", async () => {
    const { caseId, reviewer } = await twoEpisodeCase();
    const operator = await makeUser(db, ["operator"]);
    const token = (await createAccessToken(db, reviewer, { kind: "personal", name: "evidence" })).secret;
    const operatorToken = (await createAccessToken(db, operator, { kind: "personal", name: "evidence" })).secret;
    const get = (bearer: string) =>
      caseEvidenceRoute.GET(
        new Request("http://localhost/api/v1/cases/x/evidence", { headers: { authorization: `Bearer ${bearer}` } }),
        { params: Promise.resolve({ id: caseId }) },
      );
    const response = await get(token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="evidence-case-.*\.json"$/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(verifyEvidenceBytes(bytes)).toMatchObject({ valid: true });
    const [recorded] = await exportsOf(caseId);
    expect(recorded?.evidence).toMatchObject({ sha256: response.headers.get("x-evidence-sha256") });
    const refused = await get(operatorToken);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: { code: "forbidden", message: expect.any(String) } });
  });
});

describe("evidence packet of a case the retention policy redacted", () => {
  it("still signs and verifies, carries the markers and the deleted video's record, and the chain holds", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const admin = await makeUser(db, ["admin"]);
    // Its own producer's policy, so no other case of this file is touched.
    const shop = "evidence-shop-retained";
    await saveRetentionPolicy(db, admin, { producer: shop, days: 30 });
    const { caseId } = await parkCase(db, producer(shop), parkInput("generation_failed"));
    await acceptFailure(db, reviewer, caseId, { evidence: "customer says the dog video was wrong" });
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    await resolveHold(db, finance, hold.id, { kind: "release", note: "refund per ticket 7", evidence: "ticket 7" });
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    await publishedAsset(db, kase, { storageKey: `videos/${caseId}/0.mp4`, sizeBytes: 4096, sha256: "cd".repeat(32) });
    await backdateResolution(caseId, 31);
    const storage = localStorage(await mkdtemp(path.join(tmpdir(), "evidence-retention-")));
    const retention = await runRetention(db, storage, worker(), { now: new Date(), deadline: Date.now() + 10_000 });
    expect(retention.redacted).toBe(1);

    const issued = await exportCaseEvidence(db, reviewer, caseId, env());
    const verified = verifyEvidenceText(issued.text, {
      trustedPublicKeys: [evidencePublicKey(reviewer, env()).publicKey],
    });
    if (!verified.valid) throw new Error(verified.reason);
    expect(verified.timeline.intact).toBe(true);
    const [item] = verified.packet.cases;
    if (!item) throw new Error("no case in the packet");
    expect(item.case.redactedAt).toEqual(expect.any(String));
    expect(isRedactedJson(JSON.stringify(item.case.lastEvidence))).toBe(true);
    expect(item.decisions.map((d) => d.evidence)).toEqual([REDACTED_LABEL]);
    expect(item.holds.map((h) => h.decisionNote)).toEqual([REDACTED_LABEL]);
    // The facts stay: the money, and the video's record with its SHA-256, saying the file is gone.
    expect(item.holds.map((h) => [h.status, h.released.micros])).toEqual([["released", hold.amountMicros.toString()]]);
    expect(item.assets).toEqual([
      expect.objectContaining({ sha256: "cd".repeat(32), sizeBytes: "4096", deletedAt: expect.any(String) }),
    ]);
    // Every earlier event's text is a marker; the redaction's own record is readable and chained.
    const events = item.timeline.events;
    const record = events.at(-1);
    expect(record).toMatchObject({ kind: "case_redacted", evidence: { retentionDays: 30, videosDeleted: 1 } });
    const texts = events.slice(0, -1).filter((e) => e.evidence !== null);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.filter((e) => !isRedactedJson(JSON.stringify(e.evidence))).map((e) => e.kind)).toEqual([]);
    expect(issued.text).not.toContain("dog video");
    expect(issued.text).not.toContain("ticket 7");

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const report = await verifyAuditChains(client);
      expect(report.brokenChains).toBe(0);
      expect(report.redactedFields).toBeGreaterThanOrEqual(texts.length);
    } finally {
      await client.end();
    }
  });
});

describe("evidence packet of a queue filter", () => {
  it("holds exactly the filter's cases (one producer of two), states its cap, and audits each case", async () => {
    const finance = await makeUser(db, ["finance"]);
    const theirs = [await parkCase(db, shopB, parkInput("polling")), await parkCase(db, shopB, parkInput("delivery"))];
    const ours = await parkCase(db, shopA, parkInput("polling"));
    const issued = await exportFilterEvidence(db, finance, { producer: "evidence-shop-b" }, env());
    const { packet } = issued.document;
    expect(packet.scope).toEqual({
      kind: "filter",
      filter: { producer: "evidence-shop-b" },
      cap: FILTER_PACKET_CAP,
      truncated: false,
    });
    expect(packet.cases.map((c) => c.case.id).sort()).toEqual(theirs.map((t) => t.caseId).sort());
    expect(packet.cases.every((c) => c.case.producer === "evidence-shop-b")).toBe(true);
    expect(verifyEvidenceText(issued.text)).toMatchObject({ valid: true });
    for (const { caseId } of theirs) {
      expect((await exportsOf(caseId)).map((e) => e.evidence)).toEqual([
        expect.objectContaining({ packetId: packet.packetId, scope: "filter", cases: 2 }),
      ]);
    }
    expect(await exportsOf(ours.caseId)).toEqual([]);
  });

  it("is served by GET /api/v1/cases/evidence with the list's filters, validating them", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const token = (await createAccessToken(db, reviewer, { kind: "personal", name: "evidence" })).secret;
    const get = (query: string) =>
      filterEvidenceRoute.GET(
        new Request(`http://localhost/api/v1/cases/evidence?${query}`, {
          headers: { authorization: `Bearer ${token}` },
        }),
        { params: Promise.resolve({}) },
      );
    const ok = await get(evidenceQueryString({ producer: "evidence-shop-b", stage: "delivery", minAgeSeconds: 0 }));
    expect(ok.status).toBe(200);
    const verified = verifyEvidenceBytes(new Uint8Array(await ok.arrayBuffer()));
    expect(verified.valid && verified.packet.cases.map((c) => [c.case.producer, c.case.stage])).toEqual([
      ["evidence-shop-b", "delivery"],
    ]);
    const bad = await get("stage=everything");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    // A page, an order or a size is not part of a filter's packet.
    expect((await get("producer=evidence-shop-b&limit=5")).status).toBe(400);
  });
});

describe("the audit chains after exports", () => {
  it("stay intact: one statement's export rows each link into their own case's chain", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    await parkCase(db, shopB, parkInput("polling"));
    await exportFilterEvidence(db, reviewer, { producer: "evidence-shop-b" }, env());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const report = await verifyAuditChains(client);
      expect(report.brokenChains).toBe(0);
      expect(report.events).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
  });
});

function usd(micros: string) {
  return { micros, currency: "USD" };
}
