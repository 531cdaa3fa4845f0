import { beforeAll, describe, expect, it } from "vitest";
import type { JobStatus } from "@/lib/providers/types";
import type { UserActor } from "@/lib/services/access/actor";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { claimActions, proofOf } from "@/lib/services/claim/claim-actions";
import { finishAction } from "@/lib/services/claim/finish-action";
import { recordObservation } from "@/lib/services/claim/record-observation";
import { pauseScope } from "@/lib/services/scope-pause/pause-scope";
import { resumeScope } from "@/lib/services/scope-pause/resume-scope";
import { makeUser, parkInput, producer, registerProducers, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decisions 064 and 070: a person's pause stops new claims of its scope. It does not take back a
// claim already given (rule 4: the claim holder finishes with its fencing token), and it holds back
// nobody else's actions.
const { db } = openTestDb();
const paused = producer("claimed-pause-shop");
const other = producer("claimed-other-shop");
const w = worker("pause-seam-worker");

let admin: UserActor;
let reviewer: UserActor;
beforeAll(async () => {
  await registerProducers(db, paused, other);
  admin = await makeUser(db, ["admin"]);
  reviewer = await makeUser(db, ["reviewer"]);
});

async function approvedPoll(shop: typeof paused) {
  const { caseId } = await parkCase(db, shop, parkInput("polling"));
  const { actionId } = await approveCase(db, reviewer, caseId, { action: "resume_poll", evidence: "check it again" });
  return { caseId: String(caseId), actionId };
}

const claim = () => claimActions(db, w, { max: 50, leaseSeconds: 600 });

describe("a person's pause of a producer while one of its actions is claimed", () => {
  it("lets the claim finish, claims nothing new of the producer, others' as usual, and the producer's after resume", async () => {
    const first = await approvedPoll(paused);
    const claimed = await claim();
    expect(claimed.map((c) => c.actionId)).toEqual([first.actionId]);
    const held = claimed[0];
    if (!held) throw new Error("expected a claim");
    expect((await db.case.findUniqueOrThrow({ where: { id: first.caseId } })).state).toBe("claimed");

    expect(
      await pauseScope(db, admin, { kind: "producer", value: paused.name, reason: "the shop asked us to stop" }),
    ).toMatchObject({ created: true });
    const waiting = await approvedPoll(paused);
    const elsewhere = await approvedPoll(other);

    // The claim given before the pause still records what the provider said and finishes with its
    // token (an older token is refused), and its case moves as normal: completed, then resolved.
    const proof = proofOf(held, w.workerId);
    const completed: JobStatus = { kind: "completed", providerStatus: "succeeded", outputs: [], outputsRemoved: false };
    expect(await recordObservation(db, w, proof, completed)).toBe(true);
    const stale = { ...proof, fencingToken: held.fencingToken - 1 };
    expect(await finishAction(db, w, stale, { kind: "resolved" })).toBe("lost_claim");
    expect(await finishAction(db, w, proof, { kind: "resolved" })).toBe("resolved");
    const finishedCase = await db.case.findUniqueOrThrow({ where: { id: first.caseId } });
    expect(finishedCase).toMatchObject({ stage: "delivery", state: "resolved", outcome: "recovered" });
    const finished = await db.recoveryAction.findUniqueOrThrow({ where: { id: first.actionId } });
    expect(finished).toMatchObject({
      status: "succeeded",
      outcome: "resolved",
      fencingToken: BigInt(held.fencingToken),
    });
    expect(finished.finishedAt).not.toBeNull();

    // While paused: the other producer's action is claimed, the paused producer's stays ready.
    expect((await claim()).map((c) => c.actionId)).toEqual([elsewhere.actionId]);
    expect(await claim()).toEqual([]);
    expect((await db.recoveryAction.findUniqueOrThrow({ where: { id: waiting.actionId } })).status).toBe("ready");
    expect((await db.case.findUniqueOrThrow({ where: { id: waiting.caseId } })).state).not.toBe("claimed");

    await resumeScope(db, admin, { kind: "producer", value: paused.name, reason: "the shop is ready again" });
    expect((await claim()).map((c) => c.actionId)).toEqual([waiting.actionId]);
  });
});
