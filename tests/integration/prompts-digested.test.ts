import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { addNote } from "@/lib/services/case/add-note";
import { parkCase } from "@/lib/services/case/park-case";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { makeUser, outcomeInput, parkInput, permitInput, producer } from "./fixtures";
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
