import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTED, redactString, sanitise, sanitiseString } from "./sanitise";

describe("secret keys", () => {
  it.each([
    "authorization",
    "Authorization",
    "api_key",
    "api-key",
    "apiKey",
    "APIKEY",
    "token",
    "secret",
    "password",
    "cookie",
    "Set-Cookie",
    "x-api-key",
    "X_API_KEY",
    "access_token",
    "accessToken",
    "refresh-token",
    "client_secret",
    "signature",
    "X-Amz-Signature",
    "github_token",
    "webhookSecret",
    "proxy-authorization",
  ])("redacts %s", (key) => {
    expect(isSecretKey(key)).toBe(true);
    expect(sanitise({ [key]: "s3cr3t", other: 1 })).toEqual({ [key]: REDACTED, other: 1 });
  });

  it.each(["tokens_used", "max_tokens", "secretary", "model", "prompt_id", "signed"])("keeps %s", (key) => {
    expect(isSecretKey(key)).toBe(false);
  });

  it("redacts whole nested values under a secret key", () => {
    expect(sanitise({ headers: { Authorization: { scheme: "Bearer", value: "abc" } } })).toEqual({
      headers: { Authorization: REDACTED },
    });
  });
});

describe("secrets inside strings", () => {
  it("replaces bearer and basic credentials", () => {
    expect(redactString("sent Bearer eyJhbGciOi.J9.abc-_~+/= to host")).toBe(`sent Bearer ${REDACTED} to host`);
    expect(redactString("basic dXNlcjpwYXNz")).toBe(`basic ${REDACTED}`);
  });

  it("redacts whatever follows an authorization header", () => {
    expect(redactString("Authorization: Token r8_abcdef\nnext line")).toBe(`Authorization: ${REDACTED}\nnext line`);
  });

  it("redacts key=value and JSON-encoded secrets", () => {
    expect(redactString("failed: api_key=abc123&x=1")).toBe(`failed: api_key=${REDACTED}&x=1`);
    expect(redactString('{"client_secret": "zzz", "ok": 1}')).toBe(`{"client_secret": ${REDACTED}, "ok": 1}`);
    expect(redactString("X-Api-Key: k-999")).toBe(`X-Api-Key: ${REDACTED}`);
  });

  it("keeps scheme, host and path of URLs but not their query or fragment", () => {
    expect(redactString("asset at https://cdn.example.com/out/v.mp4?X-Amz-Signature=abc&Expires=1 done")).toBe(
      `asset at https://cdn.example.com/out/v.mp4?${REDACTED} done`,
    );
    expect(redactString("see https://example.com/a#access_token=zzz")).toBe("see https://example.com/a");
    expect(redactString("https://h.example/p?q=1#frag")).toBe(`https://h.example/p?${REDACTED}`);
    expect(redactString("https://example.com/plain/path")).toBe("https://example.com/plain/path");
  });

  it("removes credentials written into a URL", () => {
    expect(redactString("postgres://admin:hunter2@db.internal:5432/app")).toBe(
      `postgres://${REDACTED}@db.internal:5432/app`,
    );
  });

  it("leaves ordinary text alone", () => {
    const text = "Provider returned 504 after 30s; job still running at 12:00.";
    expect(redactString(text)).toBe(text);
  });
});

describe("size limits", () => {
  it("truncates long strings with a marker, after redaction", () => {
    expect(sanitiseString("a".repeat(2500))).toBe(`${"a".repeat(2000)}…[truncated from 2500 chars]`);
    expect(sanitise("abcdef", { maxStringLength: 3 })).toBe("abc…[truncated from 6 chars]");
    expect(sanitiseString(`${"x".repeat(5)} Bearer ${"t".repeat(50)}`, 20)).toBe(
      "xxxxx Bearer [redact…[truncated from 63 chars]",
    );
  });

  it("bounds the work on huge strings but reports their real length", () => {
    const huge = `Bearer ${"t".repeat(100_000)}`;
    const result = sanitiseString(huge, 10);
    expect(result).toBe("Bearer [re…[truncated from 100007 chars]");
  });

  it("does not split a surrogate pair", () => {
    expect(sanitise("ab😀cd", { maxStringLength: 3 })).toBe("ab…[truncated from 6 chars]");
  });

  it("caps arrays and says how many were dropped", () => {
    const result = sanitise(Array.from({ length: 150 }, (_, i) => i)) as unknown[];
    expect(result).toHaveLength(101);
    expect(result[99]).toBe(99);
    expect(result[100]).toBe("[truncated: 50 more items]");
    expect(sanitise([1, 2, 3], { maxArrayItems: 2 })).toEqual([1, 2, "[truncated: 1 more items]"]);
  });

  it("caps depth", () => {
    expect(sanitise({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toEqual({ a: { b: "[truncated: too deep]" } });
    let deep: unknown = "bottom";
    for (let i = 0; i < 20; i += 1) deep = [deep];
    let level = sanitise(deep);
    let containers = 0;
    while (Array.isArray(level)) {
      containers += 1;
      level = level[0];
    }
    expect(containers).toBe(8);
    expect(level).toBe("[truncated: too deep]");
  });

  it("caps keys per object and total values", () => {
    const wide = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, i]));
    expect(sanitise(wide, { maxObjectKeys: 2 })).toEqual({ k0: 0, k1: 1, "[truncated]": "3 more keys" });
    expect(sanitise([1, 2, 3, 4], { maxNodes: 3 })).toEqual([
      1,
      2,
      "[truncated: too many values]",
      "[truncated: too many values]",
    ]);
  });
});

describe("object safety", () => {
  it("drops prototype-reaching keys and never pollutes", () => {
    const hostile = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"prototype":1,"ok":2}',
    );
    const result = sanitise(hostile) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["ok"]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("returns a copy, not the input", () => {
    const input = { nested: { list: [1] } };
    const output = sanitise(input) as typeof input;
    expect(output).toEqual(input);
    expect(output.nested).not.toBe(input.nested);
    expect(output.nested.list).not.toBe(input.nested.list);
  });

  it("turns non-JSON values into plain data", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(
      sanitise({
        n: Number.NaN,
        big: 12n,
        when: new Date("2026-01-01T00:00:00Z"),
        bytes: new Uint8Array(4),
        fn: () => 1,
        err: new Error("failed with Bearer abc"),
        cyclic,
      }),
    ).toEqual({
      n: null,
      big: "12",
      when: "2026-01-01T00:00:00.000Z",
      bytes: "[binary 4 bytes]",
      fn: "[unsupported]",
      err: { name: "Error", message: `failed with Bearer ${REDACTED}` },
      cyclic: { name: "loop", self: "[circular]" },
    });
  });

  it("accepts null-prototype input", () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { password: "p", a: 1 });
    expect(sanitise(input)).toEqual({ password: REDACTED, a: 1 });
  });
});
