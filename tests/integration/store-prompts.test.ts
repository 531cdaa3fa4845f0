import { describe, expect, it, vi } from "vitest";
import { env } from "@/lib/env";
import { addNote } from "@/lib/services/case/add-note";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The environment is read once per process; this file's process is one where the operator chose
// to keep full prompts, and the caller hands that setting to the service as the API route does.
vi.hoisted(() => {
  process.env.STORE_PROMPTS = "1";
});

const { db } = openTestDb();

describe("STORE_PROMPTS=1", () => {
  it("keeps the prompt's text in the request summary, still without secrets", async () => {
    const prompt = "a lighthouse at dusk, slow dolly zoom";
    const { caseId } = await parkCase(
      db,
      producer("prompt-keeper"),
      parkInput("polling", { request: { prompt, api_key: "sk-KEEPOUT" } }),
      { settings: env() },
    );
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId }, include: { operation: true } });
    expect(row.operation.requestSummary).toEqual({ prompt, api_key: "[redacted]" });
  });

  it("keeps a prompt in evidence details and in a note as written (DESIGN rule 20)", async () => {
    const prompt = "a violet heron over a frozen lake";
    const park = parkInput("generation_failed");
    const { caseId } = await parkCase(
      db,
      producer("prompt-keeper"),
      {
        ...park,
        evidence: { ...park.evidence, details: { prompt } },
      },
      { settings: env() },
    );
    await addNote(db, await makeUser(db, ["reviewer"]), caseId, { text: `prompt: ${prompt}` }, env());
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect((row.lastEvidence as { details: unknown }).details).toEqual({ prompt });
    const note = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "note_added" } });
    expect(JSON.stringify(note.evidence)).toContain(`prompt: ${prompt}`);
  });

  it("keeps a prompt in a bulk note as a single note does", async () => {
    const prompt = "a paper boat on a rain gutter";
    const model = `keeper-${Date.now()}`;
    const { caseId } = await parkCase(db, producer("prompt-keeper"), parkInput("polling", { model }), {
      settings: env(),
    });
    const finance = await makeUser(db, ["finance"]);
    const action = { verb: "note" as const, text: `prompt: ${prompt}` };
    const target = { kind: "filter" as const, filter: { model } };
    const preview = await dryRunBulk(db, finance, { mode: "dry_run", action, target });
    await executeBulk(db, finance, { mode: "execute", action, target, token: preview.token }, env());
    const note = await db.auditEvent.findFirstOrThrow({ where: { caseId, kind: "note_added" } });
    expect(JSON.stringify(note.evidence)).toContain(`prompt: ${prompt}`);
  });
});
