import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../lib/env";

const secret = "s".repeat(32);

describe("environment", () => {
  it("runs in demo mode with no configuration at all", () => {
    const env = parseEnv({});
    expect(env.demo).toBe(true);
    expect(env.PORT).toBe(3000);
    expect(env.EMBEDDED_PG_PORT).not.toBe(5432);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.authUrl).toBe("http://localhost:3000");
  });

  it("treats an operator-set AUTH_SECRET as production: no demo", () => {
    expect(parseEnv({ AUTH_SECRET: secret, NODE_ENV: "production" }).demo).toBe(false);
  });

  it("refuses production (DEMO=0) without AUTH_SECRET", () => {
    expect(() => parseEnv({ DEMO: "0", NODE_ENV: "production" })).toThrow(EnvError);
    expect(() => parseEnv({ DEMO: "0", AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET/);
    expect(parseEnv({ DEMO: "0", AUTH_SECRET: secret }).demo).toBe(false);
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
});
