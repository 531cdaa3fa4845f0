import { describe, expect, it } from "vitest";
import { formatMicros } from "@/lib/domain/money";
import { env } from "@/lib/env";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const shop = producer("detail-shop");

describe("case detail: the duplicate cost a replacement would risk", () => {
  it("uses the price table: per generation, or per second times the requested duration", async () => {
    const operator = await makeUser(db, ["operator"]);
    await db.providerPrice.createMany({
      data: [
        {
          provider: "replicate",
          model: "omni-flash-1080p",
          unit: "per_generation",
          priceMicros: 150_000n,
          currency: "USD",
        },
        { provider: "replicate", model: "grok-1.5", unit: "per_second", priceMicros: 22_000n, currency: "USD" },
      ],
    });
    const perGeneration = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { provider: "replicate", model: "omni-flash-1080p" }),
    );
    const perSecond = await parkCase(
      db,
      shop,
      parkInput("generation_failed", {
        provider: "replicate",
        model: "grok-1.5",
        request: { prompt: "x", duration_seconds: 10 },
      }),
    );
    const noDuration = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { provider: "replicate", model: "grok-1.5" }),
    );
    const unpriced = await parkCase(
      db,
      shop,
      parkInput("generation_failed", { provider: "replicate", model: "unlisted" }),
    );

    const a = await getCase(db, operator, perGeneration.caseId, env());
    expect(a.duplicateCost).toMatchObject({ micros: 150_000, currency: "USD" });
    const b = await getCase(db, operator, perSecond.caseId, env());
    expect(b.duplicateCost?.micros).toBe(220_000);
    expect(formatMicros(20 * (b.duplicateCost?.micros ?? 0), "USD")).toBe("$4.40");
    expect((await getCase(db, operator, noDuration.caseId, env())).duplicateCost).toBeNull();
    expect((await getCase(db, operator, unpriced.caseId, env())).duplicateCost).toBeNull();
    expect(a.observations).toEqual([]);
    expect(a.assets).toEqual([]);
  });
});

describe("case detail: the provider job's own page", () => {
  it("is not linked for a job of the simulator the demo runs against, and says why", async () => {
    const operator = await makeUser(db, ["operator"]);
    const polling = await parkCase(db, shop, parkInput("polling", { provider: "replicate" }));
    const uncertain = await parkCase(db, shop, parkInput("submission_uncertain", { provider: "replicate" }));
    expect((await getCase(db, operator, polling.caseId, env())).providerJobPage).toEqual({
      url: null,
      why: "simulated job: no provider page",
    });
    // No job known yet: nothing to link or explain.
    expect((await getCase(db, operator, uncertain.caseId, env())).providerJobPage).toBeNull();
  });
});

describe("case detail: what the provider's API allows", () => {
  it("tells the reviewer of an uncertain Runway submission that 'no job exists' needs billing evidence", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const runway = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { provider: "runway", model: "gen4_turbo" }),
    );
    expect((await getCase(db, reviewer, runway.caseId, env())).providerCapabilities).toEqual({
      provider: "runway",
      known: true,
      notes: expect.arrayContaining(["no job list: a 'no job exists' verdict needs billing evidence"]),
    });
    const veo = await parkCase(
      db,
      shop,
      parkInput("submission_uncertain", { provider: "veo", model: "veo-3.1-generate-preview" }),
    );
    expect((await getCase(db, reviewer, veo.caseId, env())).providerCapabilities).toEqual({
      provider: "veo",
      known: true,
      notes: expect.arrayContaining(["no job list: a 'no job exists' verdict needs billing evidence"]),
    });
    const replicate = await parkCase(db, shop, parkInput("submission_uncertain", { provider: "replicate" }));
    const notes = (await getCase(db, reviewer, replicate.caseId, env())).providerCapabilities.notes;
    expect(notes.some((note) => note.includes("billing"))).toBe(false);
  });
});

describe("case detail: a Luma submission", () => {
  it("says Luma's list is searched by time, model and request, with no call for billing evidence", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const luma = await parkCase(db, shop, parkInput("submission_uncertain", { provider: "luma", model: "ray-2" }));
    const detail = await getCase(db, reviewer, luma.caseId, env());
    expect(detail.providerCapabilities).toEqual({
      provider: "luma",
      known: true,
      notes: ["no client reference: jobs are matched by time, model and request"],
    });
  });
});
