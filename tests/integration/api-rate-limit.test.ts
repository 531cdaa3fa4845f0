import { beforeAll, describe, expect, it } from "vitest";
import * as casesRoute from "../../app/api/v1/cases/route";
import { createAccessToken } from "../../lib/services/create-access-token";
import { parkInput } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();

beforeAll(() => {
  // Read on the first request of this file's module graph (the environment is parsed lazily).
  process.env.API_RATE_LIMIT_PER_MINUTE = "3";
});

describe("API rate limits", () => {
  it("limits each key separately and answers 429 with Retry-After", async () => {
    const busy = (await createAccessToken(db, "cli", { kind: "api_key", name: "busy-app" })).secret;
    const quiet = (await createAccessToken(db, "cli", { kind: "api_key", name: "quiet-app" })).secret;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await callRoute(casesRoute.POST, { token: busy, body: parkInput("polling") })).status);
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await callRoute(casesRoute.POST, { token: busy, body: parkInput("polling") });
    expect(limited.status).toBe(429);
    expect(limited.json.error?.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await db.case.count({ where: { producer: "busy-app" } })).toBe(3);
    expect((await callRoute(casesRoute.POST, { token: quiet, body: parkInput("polling") })).status).toBe(201);
  });
});
