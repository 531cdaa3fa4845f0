import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The worker carries verdicts out; it does not make them, and it does not talk to the database
// except through services. What a provider's answer means lives in lib/domain/provider-answer.ts,
// the database work in lib/services. A second copy of either in lib/worker is how rules drift.
const WORKER_DIR = path.join(process.cwd(), "lib", "worker");
const workerFiles = readdirSync(WORKER_DIR)
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
  .map((name) => ({ name, text: readFileSync(path.join(WORKER_DIR, name), "utf8") }));

const DATABASE_WORK = [
  /\$queryRaw|\$executeRaw|\$transaction/,
  /Prisma\.sql/,
  /\bdb\.[a-z][A-Za-z]*\.(find|create|update|upsert|delete|count|aggregate|groupBy)/,
];
// Stage names and the answers' reasons are what the policy branches on.
const POLICY_WORDS = [
  /"polling"|"delivery"|"generation_failed"|"submission_uncertain"/,
  /"result_unavailable"|"not_available"/,
];

describe("the worker applies the policy and leaves the database to services", () => {
  it("finds the worker's files", () => {
    expect(workerFiles.map((f) => f.name)).toEqual(
      expect.arrayContaining(["execute-action.ts", "deliver-outputs.ts", "dispatch-notifications.ts"]),
    );
  });

  it.each(workerFiles.map((f) => [f.name, f.text] as const))("%s has no SQL or Prisma model calls", (_name, text) => {
    for (const pattern of DATABASE_WORK) expect(text).not.toMatch(pattern);
  });

  it.each(workerFiles.map((f) => [f.name, f.text] as const))("%s decides nothing by stage or answer", (_name, text) => {
    for (const pattern of POLICY_WORDS) expect(text).not.toMatch(pattern);
  });
});
