import { describe, expect, it, vi } from "vitest";
import { env } from "@/lib/env";
import { parkCase } from "@/lib/services/case/park-case";
import { parkInput, producer } from "./fixtures";
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
});
