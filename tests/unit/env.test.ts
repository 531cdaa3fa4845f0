import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";
import { demoPrivateKey, keyFromSeed } from "@/lib/evidence/signing-key";

const secret = "s".repeat(32);
const live = { PROVIDER_MODE: "live", REPLICATE_API_TOKEN: "r8_key" };

describe("environment", () => {
  it("runs in demo mode with no configuration at all", () => {
    const env = parseEnv({});
    expect(env.demo).toBe(true);
    expect(env.PORT).toBe(3000);
    expect(env.EMBEDDED_PG_PORT).not.toBe(5432);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.authUrl).toBe("http://localhost:3000");
    expect(env.providerMode).toBe("simulator");
  });

  it("treats an operator-set AUTH_SECRET as production: no demo", () => {
    expect(parseEnv({ AUTH_SECRET: secret, NODE_ENV: "production", ...live }).demo).toBe(false);
  });

  it("refuses production (DEMO=0) without AUTH_SECRET", () => {
    expect(() => parseEnv({ DEMO: "0", NODE_ENV: "production", ...live })).toThrow(EnvError);
    expect(() => parseEnv({ DEMO: "0", AUTH_SECRET: "short", ...live })).toThrow(/AUTH_SECRET/);
    expect(parseEnv({ DEMO: "0", AUTH_SECRET: secret, ...live }).demo).toBe(false);
  });

  it("never runs the demo on a database DATABASE_URL names unless DEMO=1 says so", () => {
    const DATABASE_URL = "postgresql://app@db.example.com:5432/recovery";
    // A forgotten AUTH_SECRET is an error, not demo mode with published passwords in that database.
    expect(() => parseEnv({ DATABASE_URL })).toThrow(/DATABASE_URL is set but AUTH_SECRET is not.*DEMO=1/);
    expect(parseEnv({ DATABASE_URL, DEMO: "1" }).demo).toBe(true);
    expect(parseEnv({ DATABASE_URL, AUTH_SECRET: secret, ...live }).demo).toBe(false);
  });

  it("binds the loopback interface unless HOST says otherwise", () => {
    expect(parseEnv({}).HOST).toBe("127.0.0.1");
    expect(parseEnv({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
  });

  it("requires PROVIDER_MODE outside demo mode instead of defaulting to the simulator", () => {
    const production = { DEMO: "0", AUTH_SECRET: secret };
    expect(() => parseEnv(production)).toThrow(/PROVIDER_MODE is required/);
    expect(() => parseEnv({ ...production, PROVIDER_MODE: "sandbox" })).toThrow(/PROVIDER_MODE/);
    // The simulator outside the demo: named explicitly, and only with its token.
    expect(() => parseEnv({ ...production, PROVIDER_MODE: "simulator" })).toThrow(/SIMULATOR_URL and SIMULATOR_TOKEN/);
    expect(() =>
      parseEnv({ ...production, PROVIDER_MODE: "simulator", SIMULATOR_URL: "http://127.0.0.1:4010" }),
    ).toThrow(/SIMULATOR_TOKEN/);
    const simulator = parseEnv({
      ...production,
      PROVIDER_MODE: "simulator",
      SIMULATOR_URL: "http://127.0.0.1:4010",
      SIMULATOR_TOKEN: "t",
    });
    expect(simulator.providerMode).toBe("simulator");
  });

  it("accepts live mode with any one provider's key, and refuses it with none", () => {
    const production = { DEMO: "0", AUTH_SECRET: secret, PROVIDER_MODE: "live" };
    expect(() => parseEnv(production)).toThrow(
      /REPLICATE_API_TOKEN, FAL_KEY, RUNWAYML_API_SECRET, GEMINI_API_KEY or LUMAAI_API_KEY/,
    );
    expect(parseEnv({ ...production, REPLICATE_API_TOKEN: "r8_key" }).providerMode).toBe("live");
    expect(parseEnv({ ...production, FAL_KEY: "fal-key" }).providerMode).toBe("live");
    expect(parseEnv({ ...production, RUNWAYML_API_SECRET: "key_0123" }).providerMode).toBe("live");
    expect(parseEnv({ ...production, GEMINI_API_KEY: "AIza0123" }).providerMode).toBe("live");
    expect(parseEnv({ ...production, LUMAAI_API_KEY: "luma-0123" }).providerMode).toBe("live");
  });

  it("enables single sign-on only when issuer, client id and secret are all present", () => {
    expect(parseEnv({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "app" }).oidcEnabled).toBe(false);
    expect(
      parseEnv({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "app", OIDC_CLIENT_SECRET: "x" }).oidcEnabled,
    ).toBe(true);
  });

  it("rejects malformed values with the variable's name and treats empty strings as unset", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("reads an evidence signing key (Ed25519 PKCS#8 PEM), and refuses the published demo key in production", () => {
    const production = { DEMO: "0", AUTH_SECRET: secret, ...live };
    const own = keyFromSeed(Buffer.alloc(32, 3)).export({ type: "pkcs8", format: "pem" }).toString();
    expect(parseEnv({ ...production, EVIDENCE_SIGNING_KEY: own }).EVIDENCE_SIGNING_KEY).toBe(own.trim());
    expect(parseEnv({ ...production, EVIDENCE_SIGNING_KEY: own.replaceAll("\n", "\\n") }).demo).toBe(false);
    expect(() => parseEnv({ ...production, EVIDENCE_SIGNING_KEY: "not a key" })).toThrow(/EVIDENCE_SIGNING_KEY/);
    const published = demoPrivateKey(undefined).export({ type: "pkcs8", format: "pem" }).toString();
    expect(() => parseEnv({ ...production, EVIDENCE_SIGNING_KEY: published })).toThrow(/published demo key/);
    expect(parseEnv({ DEMO: "1", EVIDENCE_SIGNING_KEY: published }).demo).toBe(true);
  });
});
