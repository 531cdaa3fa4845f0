import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { addNote } from "@/lib/services/case/add-note";
import { parkCase } from "@/lib/services/case/park-case";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { makeUser, outcomeInput, parkInput, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { dumpAllRows } from "./helpers/tables";
import { openTestDb } from "./setup/test-db";

// DESIGN rule 20: a prompt is kept as its digest and length wherever text enters (evidence details,
// notes, permit reports), not only in the request summary, unless STORE_PROMPTS=1
// (tests/integration/store-prompts.test.ts runs the other side).
const { db } = openTestDb();
const shop = producer("digest-shop");
const PROMPT = "a violet heron over a frozen lake";
const sha = createHash("sha256").update(PROMPT, "utf8").digest("hex");

describe("prompts entering as text are digested", () => {
  it("in evidence details, a note and a permit report", async () => {
    const park = parkInput("generation_failed");
    const { caseId } = await parkCase(db, shop, {
      ...park,
      evidence: { ...park.evidence, details: { input: { prompt: PROMPT }, log: `prompt: ${PROMPT}` } },
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    await addNote(db, reviewer, caseId, { text: `customer resent it.\nprompt: "${PROMPT}"` });

    const { operationId, input } = permitInput();
    const permit = await requestPermit(db, shop, operationId, input, env());
    if (permit.status !== "permitted") throw new Error(`expected a permit, got ${permit.status}`);
    const report = outcomeInput(operationId, permit.permit.token, "rejected");
    await reportOutcome(db, shop, input.attemptId, {
      ...report,
      evidence: { ...report.evidence, details: { request: { negative_prompt: PROMPT } } },
    });

    expect(await dumpAllRows(db)).not.toContain("violet heron");
    const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect((kase.lastEvidence as { details: unknown }).details).toEqual({
      input: { prompt: { sha256: sha, length: PROMPT.length } },
      log: `prompt: [prompt sha256:${sha} length:${PROMPT.length}]`,
    });
    const note = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "note_added" } });
    expect(JSON.stringify(note.evidence)).toContain(`[prompt sha256:${sha} length:${PROMPT.length}]`);
    const stored = await db.sendPermit.findFirstOrThrow({ where: { operation: { operationId } } });
    expect(stored.lastReport).toMatchObject({
      evidence: { details: { request: { negative_prompt: { sha256: sha, length: PROMPT.length } } } },
    });
  });
});

describe("prompts in people's words are digested as the adapters parse them", () => {
  const route = (key: string) => {
    const found = API_ROUTES.find((r) => routeKey(r) === key);
    if (!found) throw new Error(`${key} is not in the route table`);
    return found.handle;
  };

  it("in a review's evidence and a hold's release note, through the API", async () => {
    const person = await makeUser(db, ["reviewer", "finance"]);
    const token = (await createAccessToken(db, person, { kind: "personal", name: "words" })).secret;
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    const reviewed = await callRoute(route("POST /api/v1/cases/{id}/review"), {
      token,
      params: { id: caseId },
      body: { verdict: "escalate", evidence: `the shop asked again with prompt: ${PROMPT}` },
    });
    expect(reviewed.status).toBe(200);
    const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
    const released = await callRoute(route("POST /api/v1/holds/{id}/release"), {
      token,
      params: { id: hold.id },
      body: { note: `refunded; prompt="${PROMPT}"`, evidence: "usage export: no charge" },
    });
    expect(released.status).toBe(200);

    expect(await dumpAllRows(db)).not.toContain("violet heron");
    const decided = await db.hold.findUniqueOrThrow({ where: { id: hold.id } });
    expect(decided.decisionNote).toBe(`refunded; prompt=[prompt sha256:${sha} length:${PROMPT.length}]`);
  });
});
