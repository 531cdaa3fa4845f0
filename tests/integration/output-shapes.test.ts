import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { providerRecovery } from "./helpers/provider-recovery";
import { openTestDb } from "./setup/test-db";

// Output shapes the official clients allow, delivered end to end: the simulator answers with the
// shape, the worker reads it, settles, copies and publishes, or parks with the answer kept when
// nothing in it can be read. Every copy is checked against the bytes the simulator holds.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const VEO_MODEL = "veo-3.1-generate-preview";
const replicate = providerRecovery(db, {
  provider: "replicate",
  model: "minimax/video-01",
  evidence: "prediction id confirmed in Replicate's dashboard",
});
const veo = providerRecovery(db, {
  provider: "veo",
  model: VEO_MODEL,
  evidence: "operation name confirmed in the producer's logs",
  jobIdOf: (id) => `models/${VEO_MODEL}/operations/${id}`,
});

async function deliveredBytes(assetDir: string, caseId: string) {
  const asset = await db.asset.findFirstOrThrow({ where: { caseId, publishedAt: { not: null } } });
  const bytes = await readFile(path.join(assetDir, asset.storageKey));
  return { asset, sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
}

describe("every output shape, through the worker", () => {
  it("a Replicate prediction whose output is a list of lists is delivered, not parked as empty", async () => {
    const { caseId, jobId } = await replicate.approvedCase("polling", { outcome: "succeeded", outputShape: "nested" });
    expect(await replicate.outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ outcome: "delivered" });
    const { sha256, size } = await deliveredBytes(replicate.assetDir, caseId);
    expect({ sha256, size }).toEqual(replicate.sim.state.expectedOutput(jobId));
    expect(replicate.sim.state.requests({ pathIncludes: `/delivery/replicate/${jobId}/` })).toHaveLength(1);
  });

  it("a Replicate prediction that answers with a data: URI is stored from the answer, fetching nothing", async () => {
    const { caseId, jobId } = await replicate.approvedCase("polling", { outcome: "succeeded", outputShape: "inline" });
    expect(await replicate.outcomeOf(caseId)).toBe("resolved");
    const { asset, sha256, size } = await deliveredBytes(replicate.assetDir, caseId);
    expect({ sha256, size }).toEqual(replicate.sim.state.expectedOutput(jobId));
    expect(asset).toMatchObject({ sha256, contentType: "video/mp4" });
    expect(replicate.sim.state.requests({ pathIncludes: `/delivery/replicate/${jobId}/` })).toHaveLength(0);
    // The observation names the inline output by type and size; it does not hold the video.
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId, kind: "completed" } });
    expect(observation.outputs).toEqual([
      { index: 0, url: `data:video/mp4 (about ${size} bytes given inline)`, expiresAt: expect.any(String) },
    ]);
  });

  it("a Veo operation whose sample carries its video inline (encodedVideo) is delivered without a download", async () => {
    const { caseId, jobId } = await veo.approvedCase("polling", { outcome: "succeeded", outputShape: "inline" });
    expect(await veo.outcomeOf(caseId)).toBe("resolved");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({ outcome: "delivered" });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    const { sha256, size } = await deliveredBytes(veo.assetDir, caseId);
    expect({ sha256, size }).toEqual(veo.sim.state.expectedOutput(jobId));
    expect(veo.sim.state.requests({ pathIncludes: `/veo/v1beta/files/${jobId}:download` })).toHaveLength(0);
  });

  it("a completion naming nothing readable is settled (the charge is certain) and parked for a person with the answer as evidence", async () => {
    const { caseId } = await replicate.approvedCase("polling", { outcome: "succeeded", outputShape: "unreadable" });
    expect(await replicate.outcomeOf(caseId)).toBe("parked");
    expect(await db.case.findUniqueOrThrow({ where: { id: caseId } })).toMatchObject({
      stage: "delivery",
      state: "parked",
    });
    expect((await db.hold.findFirstOrThrow({ where: { caseId } })).status).toBe("settled");
    expect(await db.asset.count({ where: { caseId } })).toBe(0);
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId, kind: "completed" } });
    expect(observation.detail).toMatchObject({
      outputs: [],
      evidence: { unreadableAnswer: { output: { seed: 42, message: "done" } } },
    });
    const events = await db.auditEvent.findMany({ where: { caseId }, orderBy: { id: "asc" } });
    const said = JSON.stringify(events.map((e) => e.evidence));
    expect(said).toContain(
      "the provider reports the job completed (succeeded), but its answer holds no output this product can read; its answer is kept on the observation",
    );
    expect(said).not.toContain("no outputs to deliver");
  });

  it("a Veo sample with no readable video is parked the same way, its samples kept", async () => {
    const { caseId } = await veo.approvedCase("polling", { outcome: "succeeded", outputShape: "unreadable" });
    expect(await veo.outcomeOf(caseId)).toBe("parked");
    const observation = await db.providerObservation.findFirstOrThrow({ where: { caseId, kind: "completed" } });
    expect(observation.detail).toMatchObject({
      evidence: { unreadableAnswer: { generateVideoResponse: { generatedSamples: [{ video: {} }] } } },
    });
  });
});
