import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import type { JobStatus } from "@/lib/providers/types";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { type ClaimedAction, claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { publishDelivery } from "@/lib/services/claim/publish-delivery";
import { recordObservation } from "@/lib/services/claim/record-observation";
import { reserveAssets } from "@/lib/services/claim/reserve-assets";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// recordObservation and publishDelivery each read the case, decide, and write in one guarded
// statement; when the case changed between the read and the write, the statement writes nothing and
// the same read and write run again under the claim's row locks. Both ways must leave the same rows;
// the second is forced here by a client whose reads (outside a transaction) come back one case
// version behind, as if someone had changed the case in between.
const { db } = openTestDb();
const shop = producer("statements-shop");

function readsOneVersionBehind(client: PrismaClient): PrismaClient {
  // Reads outside a claim's row locks come back stale: on the client, and in a transaction until it
  // takes them (a publish's own transaction, decision 072, reads before any row lock too).
  const behind = <T extends object>(target: T, locks: { held: boolean }): T =>
    new Proxy(target, {
      get(t, property, receiver) {
        const real = t as unknown as PrismaClient;
        if (property === "$transaction") {
          return (work: (tx: PrismaClient) => Promise<unknown>, options?: object) =>
            real.$transaction((tx) => work(behind(tx as PrismaClient, { held: false })), options);
        }
        if (property !== "$queryRaw") return Reflect.get(t, property, receiver);
        return async (strings: TemplateStringsArray | { sql?: string }, ...values: unknown[]) => {
          const rows = await real.$queryRaw<Record<string, unknown>[]>(strings as TemplateStringsArray, ...values);
          const text = Array.isArray(strings) ? strings.join("") : ((strings as { sql?: string }).sql ?? "");
          if (text.includes("FOR UPDATE")) locks.held = true;
          if (locks.held) return rows;
          return rows.map((row) => (typeof row.version === "number" ? { ...row, version: row.version - 1 } : row));
        };
      },
    });
  return behind(client, { held: false });
}

const sameWorker = worker();
let reviewer: Awaited<ReturnType<typeof makeUser>> | undefined;

async function claimed(w = sameWorker): Promise<{ caseId: string; claim: ClaimedAction; w: typeof w }> {
  reviewer ??= await makeUser(db, ["reviewer"]);
  const { caseId } = await parkCase(db, shop, parkInput("polling"));
  await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "resume" });
  for (let round = 0; round < 20; round++) {
    const mine = (await claimActions(db, w, { max: 50 })).find((c) => c.caseId === caseId);
    if (mine) return { caseId, claim: mine, w };
  }
  throw new Error("never claimed");
}

/** Everything the worker path wrote for one case, with what differs between cases named alike. */
async function written(caseId: string) {
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
  const rows = {
    case: {
      ...kase,
      id: 0,
      operationRef: 0,
      attemptRef: 0,
      openedAt: 0,
      updatedAt: 0,
      resolvedAt: !!kase.resolvedAt,
      lastAttemptAt: !!kase.lastAttemptAt,
    },
    hold: { ...hold, id: 0, caseId: 0, attemptRef: 0, createdAt: 0, resolvedAt: !!hold.resolvedAt },
    entries: (await db.ledgerEntry.findMany({ where: { holdRef: hold.id }, orderBy: { kind: "asc" } })).map((e) => ({
      ...e,
      id: 0,
      holdRef: 0,
      createdAt: 0,
    })),
    observations: (await db.providerObservation.findMany({ where: { caseId } })).map((o) => ({
      ...o,
      id: 0,
      observedAt: 0,
    })),
    assets: (await db.asset.findMany({ where: { caseId } })).map((a) => ({
      ...a,
      id: 0,
      createdAt: 0,
      publishedAt: !!a.publishedAt,
    })),
    action: await db.recoveryAction
      .findFirstOrThrow({ where: { caseId } })
      .then((a) => ({ ...a, id: 0, decisionId: 0, createdAt: 0, readyAt: 0, finishedAt: !!a.finishedAt })),
    // Hashes and digests cover the ids replaced below; the texts themselves are compared instead.
    audit: (await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } })).map((e) => ({
      ...e,
      id: 0,
      createdAt: 0,
      prevHash: 0,
      hash: 0,
      beforeDigest: 0,
      afterDigest: 0,
      evidenceDigest: 0,
    })),
    outbox: (await db.notificationOutbox.findMany({ where: { caseId } })).map((m) => ({
      ...m,
      id: m.id.startsWith("msg_"),
      createdAt: 0,
      nextAttemptAt: 0,
      payload: { ...(m.payload as object), timestamp: 0 },
    })),
  };
  const text = JSON.stringify(rows, (_, value) => (typeof value === "bigint" ? Number(value) : value));
  return JSON.parse(
    text
      .replaceAll(createHash("sha256").update(caseId).digest("hex"), "SHA")
      .replaceAll(caseId, "CASE")
      .replaceAll(kase.attemptRef, "ATTEMPT")
      .replaceAll(kase.registeredFingerprint, "FINGERPRINT")
      .replaceAll((await db.recoveryAction.findFirstOrThrow({ where: { caseId } })).id, "ACTION")
      .replaceAll(kase.operationId, "OP")
      .replaceAll(kase.providerJobId ?? "-", "JOB")
      .replaceAll(hold.holdId, "HOLD"),
  );
}

async function runPath(client: PrismaClient) {
  const { caseId, claim, w } = await claimed();
  const proof = proofOf(claim, w.workerId);
  const completed: JobStatus = {
    kind: "completed",
    providerStatus: "succeeded",
    outputs: [{ url: `https://replicate.delivery/x/${caseId}.mp4?sig=secret`, size: 10 }],
    outputsRemoved: false,
  };
  const transactions = vi.spyOn(db, "$transaction");
  expect(await recordObservation(client, w, proof, completed)).toBe(true);
  const outputs = [
    {
      outputIndex: 0,
      storageKey: `op/${caseId}/claim-${claim.fencingToken}/output-0`,
      // Each path's own bytes, so the two copies are not the same video (decision 072).
      sha256: createHash("sha256").update(caseId).digest("hex"),
      size: 10,
      contentType: "video/mp4",
    },
  ];
  expect(await reserveAssets(client, w, proof, { caseId, keys: outputs, outputs: completed.outputs })).toEqual({
    kind: "reserved",
  });
  expect(await publishDelivery(client, w, proof, outputs)).toBe("resolved");
  const used = transactions.mock.calls.length;
  transactions.mockRestore();
  return { caseId, transactions: used };
}

describe("the worker's writes, on the case as read or after a stale read", () => {
  it("leave the same rows either way", async () => {
    await db.notificationEndpoint.create({
      data: {
        producer: shop.name,
        url: "https://shop.example/hooks",
        signingSecret: `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
      },
    });
    const fast = await runPath(db);
    const locked = await runPath(readsOneVersionBehind(db));
    // The publish is one transaction (decision 072: its digests are locked first); after a stale
    // read, it and the observation each run again under the claim's row locks.
    expect([fast.transactions, locked.transactions]).toEqual([1, 3]);
    const a = await written(fast.caseId);
    expect(a).toEqual(await written(locked.caseId));
    expect(a.case).toMatchObject({
      stage: "delivery",
      state: "resolved",
      heldMicros: 0,
      pollAttempts: 1,
      deliveryAttempts: 1,
    });
    expect(a.hold).toMatchObject({ status: "settled", settledMicros: 100_000 });
    expect(a.entries.map((e: { kind: string }) => e.kind)).toEqual(["reserve", "settle"]);
    expect(a.audit.map((e: { kind: string }) => e.kind).slice(-4)).toEqual([
      "claimed",
      "hold_settled",
      "completion_observed",
      "recovery_succeeded",
    ]);
    expect(a.outbox).toHaveLength(1);
  });

  it("a stale claim writes nothing on either path", async () => {
    const { caseId, claim, w } = await claimed();
    await db.recoveryAction.update({
      where: { id: claim.actionId },
      data: { leaseUntil: new Date(Date.now() - 1000) },
    });
    const before = await written(caseId);
    const status: JobStatus = { kind: "running", providerStatus: "processing" };
    for (const client of [db, readsOneVersionBehind(db)]) {
      expect(await recordObservation(client, w, proofOf(claim, w.workerId), status)).toBe(false);
      expect(await publishDelivery(client, w, proofOf(claim, w.workerId), [])).toBe("lost_claim");
    }
    expect(await written(caseId)).toEqual(before);
  });

  it("a check that finds the job still running records the observation and a counter, nothing else", async () => {
    const { caseId, claim, w } = await claimed();
    const before = await written(caseId);
    const running: JobStatus = { kind: "running", providerStatus: "processing" };
    expect(await recordObservation(db, w, proofOf(claim, w.workerId), running)).toBe(true);
    const after = await written(caseId);
    expect(after.case).toEqual({ ...before.case, pollAttempts: 1 });
    expect(after.audit).toEqual(before.audit);
    expect(after.observations).toEqual([
      expect.objectContaining({ kind: "running", providerStatus: "processing", outputs: null, detail: running }),
    ]);
    const [stored] = await db.$queryRaw<{ sqlNull: boolean }[]>`
      SELECT outputs IS NULL AS "sqlNull" FROM provider_observations WHERE case_id = ${caseId}::uuid`;
    expect(stored?.sqlNull).toBe(true);
  });
});
