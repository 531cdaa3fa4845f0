import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DOMAIN_ERROR_CODES, DomainError } from "@/lib/domain/errors";
import { AppError, ERROR_STATUS, toErrorBody } from "@/lib/errors";

// One code registry and one status map (decision 044): the pure domain names its refusals, and
// lib/errors.ts alone says how each answers over HTTP.
const DOMAIN_DIR = path.join(process.cwd(), "lib", "domain");

describe("one error registry", () => {
  it("registers every domain code with an error status", () => {
    for (const code of DOMAIN_ERROR_CODES) expect(ERROR_STATUS[code], code).toBeGreaterThanOrEqual(400);
  });

  it("answers a domain refusal and an AppError of the same code with the same status and body shape", () => {
    for (const code of DOMAIN_ERROR_CODES) {
      const fromDomain = toErrorBody(new DomainError(code, "refused"));
      const fromBoundary = toErrorBody(new AppError(code, "refused"));
      expect(fromDomain, code).toEqual(fromBoundary);
      expect(fromDomain.status, code).toBe(ERROR_STATUS[code]);
    }
  });

  it("keeps the statuses clients rely on", () => {
    expect(toErrorBody(new DomainError("conflicting_registration")).status).toBe(409);
    expect(toErrorBody(new DomainError("forbidden")).status).toBe(403);
    expect(toErrorBody(new DomainError("replacement_expired")).status).toBe(410);
    expect(toErrorBody(new DomainError("amount_exceeds_hold")).status).toBe(422);
    expect(toErrorBody(new Error("driver said no")).status).toBe(500);
  });

  it("keeps HTTP statuses out of the pure domain", () => {
    // A code mapped to a status (`forbidden: 403`) anywhere in lib/domain is a second status table.
    const mapping = new RegExp(`\\b(${DOMAIN_ERROR_CODES.join("|")})\\s*:\\s*[1-5]\\d\\d\\b`);
    const offenders = readdirSync(DOMAIN_DIR)
      .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
      .filter((name) => mapping.test(readFileSync(path.join(DOMAIN_DIR, name), "utf8")));
    expect(offenders).toEqual([]);
    expect(mapping.test("  stale_fencing_token: 409,")).toBe(true);
  });
});
