import { beforeAll, describe, expect, it } from "vitest";
import * as casesRoute from "@/app/api/v1/cases/route";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { makeUser, parkInput } from "./fixtures";
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

  it("counts a request in the statement that resolves its token, and only a token the route accepts", async () => {
    const producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "counted-app" })).secret;
    const workerToken = (await createAccessToken(db, "cli", { kind: "worker", name: "counted-worker" })).secret;
    const operator = await makeUser(db, ["operator"]);
    const personal = await createAccessToken(db, operator, { kind: "personal", name: "laptop" });
    const buckets = async () =>
      Object.fromEntries((await db.rateLimitBucket.findMany()).map((row) => [row.key, row.count]));

    // Refused before counting: a secret that resolves to nobody, and a token of the wrong kind.
    expect((await callRoute(casesRoute.POST, { token: "vrk_unknown", body: parkInput("polling") })).status).toBe(401);
    expect((await callRoute(casesRoute.POST, { token: workerToken, body: parkInput("polling") })).status).toBe(403);
    expect((await callRoute(casesRoute.POST, { token: personal.secret, body: parkInput("polling") })).status).toBe(403);
    expect(await buckets()).not.toHaveProperty(`api:user:${operator.userId}`);
    expect(Object.keys(await buckets()).some((key) => key.startsWith("api:worker:"))).toBe(false);

    // Counted once per request, under the key the session path uses for the same person.
    for (let i = 0; i < 3; i++) expect((await callRoute(casesRoute.GET, { token: personal.secret })).status).toBe(200);
    expect((await callRoute(casesRoute.GET, { token: personal.secret })).status).toBe(429);
    expect((await buckets())[`api:user:${operator.userId}`]).toBe(4);
    expect((await callRoute(casesRoute.POST, { token: producerKey, body: parkInput("polling") })).status).toBe(201);
    const key = await db.accessToken.findFirstOrThrow({ where: { name: "counted-app" } });
    expect((await buckets())[`api:key:${key.id}`]).toBe(1);
    expect(key.lastUsedAt).toBeInstanceOf(Date);

    // A revoked token stops counting at once.
    await db.accessToken.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect((await callRoute(casesRoute.POST, { token: producerKey, body: parkInput("polling") })).status).toBe(401);
    expect((await buckets())[`api:key:${key.id}`]).toBe(1);
  });
});
