import { describe, expect, it } from "vitest";
import { openTestDb } from "./setup/test-db";

// The database's own last word on request fingerprints (migration 20261130000000 rewrote the check
// to run faster): exactly "sha256:" and 64 lowercase hex digits, nothing else.
const { db } = openTestDb();
const hex = "0123456789abcdef".repeat(4);

async function accepted(fingerprint: string): Promise<boolean> {
  try {
    await db.$executeRaw`
      INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
      VALUES ('fp-shop', ${`op-${fingerprint.length}-${Math.random()}`}, 'p', 'm', ${fingerprint})`;
    return true;
  } catch {
    return false;
  }
}

describe("operations_fingerprint_format", () => {
  it("takes sha256: and 64 lowercase hex digits", async () => {
    expect(await accepted(`sha256:${hex}`)).toBe(true);
  });

  it.each([
    ["63 digits", `sha256:${hex.slice(1)}`],
    ["65 digits", `sha256:${hex}0`],
    ["an uppercase digit", `sha256:${hex.slice(1)}A`],
    ["a non-hex letter", `sha256:${hex.slice(1)}g`],
    ["another prefix", `sha512:${hex}`],
    ["an uppercase prefix", `SHA256:${hex}`],
    ["a trailing newline", `sha256:${hex.slice(1)}\n`],
    ["a leading space", ` sha256:${hex.slice(1)}`],
  ])("refuses %s", async (_label, fingerprint) => {
    expect(await accepted(fingerprint)).toBe(false);
  });
});
