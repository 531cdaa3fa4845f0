import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { logSettings } from "@/lib/env";
import { LIVE_PROVIDER_KEYS } from "@/lib/providers/registry";
import { createLogger, SECRET_KEY_NAMES } from "./logger";

const captured = () => {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
};

const secrets = {
  headers: { authorization: "Bearer vrk_header_secret", cookie: "session=cookie_secret" },
  token: "vrw_worker_secret",
  password: "hunter2-password",
  producer: { signingSecret: "whsec_signing_secret", secret: "nested_secret" },
  FAL_KEY: "fal_key_secret",
  REPLICATE_API_TOKEN: "r8_replicate_secret",
  response: { headers: { "set-cookie": "next-auth.session-token=set_cookie_secret" } },
  error: "download failed: https://cdn.example/v.mp4?X-Amz-Signature=url_secret",
};

describe("structured logs", () => {
  it("redact every secret in a logged object, in JSON and in plain lines, and keep the rest", () => {
    for (const format of ["json", "plain"] as const) {
      const { lines, destination } = captured();
      createLogger({ level: "info", format }, destination).info({ step: "notify", fencingToken: 7, ...secrets });
      const text = lines.join("");
      for (const secret of ["vrk_header", "cookie_secret", "vrw_worker", "hunter2", "whsec_", "nested_secret"])
        expect(text, format).not.toContain(secret);
      for (const secret of ["fal_key_secret", "r8_replicate", "set_cookie_secret", "url_secret"])
        expect(text, format).not.toContain(secret);
      expect(text, format).toContain("[redacted]");
      expect(text, format).toContain("notify");
      expect(text, format).toMatch(/fencingToken"?[:=]7/);
    }
  });

  it("redact every provider's live key, whatever the provider, and the Gemini API's key header", () => {
    expect(SECRET_KEY_NAMES).toEqual(expect.arrayContaining([...LIVE_PROVIDER_KEYS]));
    const { lines, destination } = captured();
    const keys = Object.fromEntries(LIVE_PROVIDER_KEYS.map((name) => [name, `${name.toLowerCase()}_value_secret`]));
    createLogger({ level: "info", format: "json" }, destination).info({
      env: keys,
      ...keys,
      headers: { "x-goog-api-key": "goog_header_secret" },
    });
    const text = lines.join("");
    expect(text).not.toMatch(/_value_secret|goog_header_secret/);
  });

  it("are JSON objects with an ISO time and a level name in production, plain lines for people otherwise", () => {
    expect(logSettings({ NODE_ENV: "production" })).toEqual({ level: "info", format: "json" });
    expect(logSettings({ NODE_ENV: "development" })).toEqual({ level: "info", format: "plain" });
    expect(logSettings({ NODE_ENV: "production", LOG_FORMAT: "plain", LOG_LEVEL: "warn" })).toEqual({
      level: "warn",
      format: "plain",
    });
    expect(logSettings({ LOG_FORMAT: "json" }).format).toBe("json");
    expect(() => logSettings({ LOG_LEVEL: "loud" })).toThrow(/LOG_LEVEL/);

    const json = captured();
    createLogger({ level: "info", format: "json" }, json.destination).child({ component: "server" }).info("listening");
    const line = JSON.parse(json.lines[0] ?? "{}");
    expect(line).toMatchObject({ level: "info", component: "server", msg: "listening" });
    expect(new Date(line.time).toISOString()).toBe(line.time);

    const plain = captured();
    const people = createLogger({ level: "info", format: "plain" }, plain.destination).child({ component: "server" });
    people.info("listening on http://127.0.0.1:3000");
    people.debug("not shown at info");
    people.error({ drainMs: 30000 }, "requests still open");
    expect(plain.lines).toEqual([
      "[server] listening on http://127.0.0.1:3000\n",
      "[server] error: requests still open drainMs=30000\n",
    ]);
  });

  it("the worker's step lines, written to stdout in production, carry no secret", () => {
    const script = `import { workerLog } from "./lib/worker/log.ts";
      workerLog({ step: "notify_failed", headers: { authorization: "Bearer vrk_stdout_secret" }, error: "x" });`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: path.resolve(__dirname, "../.."),
      env: { PATH: process.env.PATH, NODE_ENV: "production" },
      encoding: "utf8",
    });
    expect(out).toContain('"step":"notify_failed"');
    expect(out).not.toContain("vrk_stdout_secret");
    // A child Node with tsx: the limit only catches a hang, not a slow start on a loaded machine.
  }, 60_000);
});
