import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { demoPrivateKey, keyFromSeed, keyIdOf } from "@/lib/evidence/signing-key";
import { requireSigningKey, signingKeyFor } from "./deployment-key";

const secret = "an-auth-secret-of-at-least-thirty-two-chars";
const ownPem = keyFromSeed(Buffer.alloc(32, 1)).export({ type: "pkcs8", format: "pem" }).toString();

describe("the deployment's evidence signing key", () => {
  it("is the configured key, in production and in demo mode alike", () => {
    for (const demo of [false, true]) {
      const key = signingKeyFor({ EVIDENCE_SIGNING_KEY: ownPem, AUTH_SECRET: secret, demo });
      expect(key).toMatchObject({ keyId: keyIdOf(keyFromSeed(Buffer.alloc(32, 1))), demo: false });
    }
  });

  it("is derived from the demo's secret in demo mode, and marked as a demo key", () => {
    const key = signingKeyFor({ EVIDENCE_SIGNING_KEY: undefined, AUTH_SECRET: secret, demo: true });
    expect(key).toMatchObject({ keyId: keyIdOf(demoPrivateKey(secret)), demo: true });
  });

  it("does not exist in production without a configured key: exports are refused with a typed 503", () => {
    const key = signingKeyFor({ EVIDENCE_SIGNING_KEY: undefined, AUTH_SECRET: secret, demo: false });
    expect(key).toBeNull();
    const refused = (() => {
      try {
        return requireSigningKey(key);
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "evidence_signing_unconfigured", status: 503 });
  });
});
