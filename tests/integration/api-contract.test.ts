import { beforeAll, describe, expect, it } from "vitest";
import * as approveRoute from "@/app/api/v1/cases/[id]/approve/route";
import * as caseRoute from "@/app/api/v1/cases/[id]/route";
import * as byOperationRoute from "@/app/api/v1/cases/by-operation/[operationId]/route";
import * as casesRoute from "@/app/api/v1/cases/route";
import * as openapiRoute from "@/app/api/v1/openapi.json/route";
import * as overviewRoute from "@/app/api/v1/overview/route";
import { API_ROUTES } from "@/lib/api/routes";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { revokeAccessToken } from "@/lib/services/access/revoke-access-token";
import { makeUser, parkInput } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
let producerKey = "";
let otherProducerKey = "";
let reviewerToken = "";
let operatorToken = "";

beforeAll(async () => {
  producerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "shop-app" })).secret;
  otherProducerKey = (await createAccessToken(db, "cli", { kind: "api_key", name: "other-app" })).secret;
  const reviewer = await makeUser(db, ["reviewer"]);
  const operator = await makeUser(db, ["operator"]);
  reviewerToken = (await createAccessToken(db, reviewer, { kind: "personal", name: "cli" })).secret;
  operatorToken = (await createAccessToken(db, operator, { kind: "personal", name: "cli" })).secret;
});

const park = (body: unknown, token = producerKey) => callRoute(casesRoute.POST, { token, body });

describe("POST /api/v1/cases", () => {
  it("creates (201), re-registers identically (200, created false), refuses different facts (409)", async () => {
    const input = parkInput("polling");
    const first = await park(input);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ created: true, stage: "polling", state: "parked" });
    const again = await park(input);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ...first.json, created: false });
    const before = await tableCounts(db);
    const conflict = await park({ ...input, providerJobId: "another-job" });
    expect(conflict.status).toBe(409);
    expect(conflict.json.error?.code).toBe("conflicting_registration");
    expect(await tableCounts(db)).toEqual(before);
  });

  const invalid: [string, (input: ReturnType<typeof parkInput>) => unknown][] = [
    ["an unknown stage", (i) => ({ ...i, stage: "retry_everything" })],
    ["polling without providerJobId", (i) => ({ ...i, providerJobId: undefined })],
    ["a bad fingerprint", (i) => ({ ...i, requestFingerprint: "md5:abc" })],
    ["a fractional amount", (i) => ({ ...i, hold: { ...i.hold, amountMicros: 0.5 } })],
    ["a zero amount", (i) => ({ ...i, hold: { ...i.hold, amountMicros: 0 } })],
    ["a negative amount", (i) => ({ ...i, hold: { ...i.hold, amountMicros: -100 } })],
    ["an amount as a string", (i) => ({ ...i, hold: { ...i.hold, amountMicros: "100000" } })],
    ["an unknown field", (i) => ({ ...i, retryNow: true })],
    ["a missing evidence summary", (i) => ({ ...i, evidence: { observedAt: "2026-11-29T10:00:00Z" } })],
    ["an array body", () => [1, 2, 3]],
  ];
  it.each(invalid)("refuses %s with 400 invalid_request and issues, changing nothing", async (_name, mutate) => {
    const before = await tableCounts(db);
    const result = await park(mutate(parkInput("polling")));
    expect(result.status).toBe(400);
    expect(result.json.error?.code).toBe("invalid_request");
    expect(result.json.error?.issues?.length).toBeGreaterThan(0);
    expect(await tableCounts(db)).toEqual(before);
  });

  it("refuses a missing, unknown or revoked key (401) and a personal token (403)", async () => {
    const input = parkInput("delivery");
    expect((await park(input, "")).status).toBe(401);
    expect((await park(input, "vrk_not-a-real-key")).status).toBe(401);
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: "shop-app" });
    const admin = await makeUser(db, ["admin"]);
    await revokeAccessToken(db, admin, key.id);
    expect((await park(input, key.secret)).json.error?.code).toBe("unauthenticated");
    const personal = await park(input, reviewerToken);
    expect(personal.status).toBe(403);
    expect(personal.json.error?.code).toBe("forbidden");
  });

  it("refuses bodies over 64 KB (413) and non-JSON (415) and malformed JSON (400)", async () => {
    const huge = { ...parkInput("polling"), request: { prompt: "x".repeat(70 * 1024) } };
    expect((await park(huge)).status).toBe(413);
    const text = await callRoute(casesRoute.POST, { token: producerKey, rawBody: "hello", contentType: "text/plain" });
    expect(text.status).toBe(415);
    expect(text.json.error?.code).toBe("unsupported_media_type");
    const broken = await callRoute(casesRoute.POST, { token: producerKey, rawBody: '{"operationId": ' });
    expect(broken.status).toBe(400);
  });

  it("strips secrets, bearer tokens and signed-URL query strings before storage", async () => {
    const input = parkInput("delivery", {
      request: { prompt: "a cat", headers: { Authorization: "Bearer sk-live-123" }, api_key: "sk-abc" },
      evidence: {
        summary: "download failed for https://cdn.example.com/v.mp4?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA",
        observedAt: "2026-11-29T10:00:00Z",
        details: { callback: "Bearer eyJhbGciOi.secret.part", token: "tok_123" },
      },
    });
    const result = await park(input);
    const stored = await db.case.findUniqueOrThrow({
      where: { id: String(result.json.caseId) },
      include: { operation: true },
    });
    const text = JSON.stringify([stored.lastEvidence, stored.operation.requestSummary]);
    for (const secret of ["sk-live-123", "sk-abc", "deadbeef", "AKIA", "eyJhbGciOi", "tok_123"])
      expect(text).not.toContain(secret);
    expect(text).toContain("https://cdn.example.com/v.mp4");
    // The prompt is kept as a digest by default (STORE_PROMPTS=1 keeps the text).
    expect(text).not.toContain("a cat");
    expect(stored.operation.requestSummary).toMatchObject({ prompt: { sha256: expect.any(String), length: 5 } });
  });
});

describe("producer reads", () => {
  it("shows a producer its own operation and nobody else's", async () => {
    const input = parkInput("polling");
    await park(input);
    const mine = await callRoute(byOperationRoute.GET, {
      token: producerKey,
      params: { operationId: input.operationId },
    });
    expect(mine.status).toBe(200);
    expect(mine.json).toMatchObject({ operationId: input.operationId, stage: "polling", state: "parked" });
    const theirs = await callRoute(byOperationRoute.GET, {
      token: otherProducerKey,
      params: { operationId: input.operationId },
    });
    expect(theirs.status).toBe(404);
  });
});

describe("reviewer API", () => {
  it("approves once: the same decision returns the same actionId; an operator is refused", async () => {
    const { json } = await park(parkInput("delivery"));
    const caseId = String(json.caseId);
    const body = { action: "retry_delivery", evidence: "asset is on the provider" };
    const denied = await callRoute(approveRoute.POST, { token: operatorToken, params: { id: caseId }, body });
    expect(denied.status).toBe(403);
    const first = await callRoute(approveRoute.POST, { token: reviewerToken, params: { id: caseId }, body });
    const second = await callRoute(approveRoute.POST, { token: reviewerToken, params: { id: caseId }, body });
    expect(first.status).toBe(200);
    expect(second.json.actionId).toBe(first.json.actionId);
    const other = await callRoute(approveRoute.POST, {
      token: reviewerToken,
      params: { id: caseId },
      body: { action: "resume_poll", evidence: "x" },
    });
    expect(other.status).toBe(409);
    const detail = await callRoute(caseRoute.GET, { token: operatorToken, params: { id: caseId } });
    expect(detail.json).toMatchObject({ state: "ready", liveAction: { kind: "retry_delivery", status: "ready" } });
    expect((detail.json.timeline as { kind: string }[]).map((e) => e.kind)).toEqual([
      "approved",
      "hold_reserved",
      "parked",
    ]);
  });

  it("lists cases with filters and keyset pages that never repeat or skip", async () => {
    for (let i = 0; i < 7; i++) await park(parkInput("generation_failed", { model: "page-model" }));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await callRoute(casesRoute.GET, {
        token: operatorToken,
        query: { model: "page-model", limit: "3", sort: "amount", ...(cursor ? { cursor } : {}) },
      });
      expect(page.status).toBe(200);
      seen.push(...(page.json.items as { id: string }[]).map((c) => c.id));
      cursor = (page.json.nextCursor as string | null) ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const bad = await callRoute(casesRoute.GET, { token: operatorToken, query: { sort: "price" } });
    expect(bad.status).toBe(400);
  });

  it("answers an unknown case with 404 and a malformed ID with 404, both in the error shape", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const result = await callRoute(caseRoute.GET, { token: operatorToken, params: { id } });
      expect(result.status).toBe(404);
      expect(result.json.error).toMatchObject({ code: "not_found", message: expect.any(String) });
    }
  });
});

describe("OpenAPI", () => {
  it("answers GET /api/v1/overview for one producer, and refuses an empty producer", async () => {
    await park(parkInput("delivery"), otherProducerKey);
    const open = (json: Record<string, unknown>) =>
      (json.stages as { open: number }[]).reduce((sum, stage) => sum + stage.open, 0);
    const all = await callRoute(overviewRoute.GET, { token: reviewerToken });
    const other = await callRoute(overviewRoute.GET, { token: reviewerToken, query: { producer: "other-app" } });
    const shop = await callRoute(overviewRoute.GET, { token: reviewerToken, query: { producer: "shop-app" } });
    expect([all.status, other.status, shop.status]).toEqual([200, 200, 200]);
    expect(open(other.json)).toBeGreaterThan(0);
    expect(open(other.json) + open(shop.json)).toBe(open(all.json));
    const empty = await callRoute(overviewRoute.GET, { token: reviewerToken, query: { producer: "" } });
    expect(empty.status).toBe(400);
    expect(empty.json.error?.code).toBe("invalid_request");
  });

  it("documents every route as OpenAPI 3.1 with request schemas from zod", async () => {
    const doc = (await openapiRoute.GET().json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const op of API_ROUTES) {
      const method = op.method.toLowerCase();
      expect(doc.paths[op.path]?.[method], `${op.method} ${op.path}`).toBeDefined();
      if (op.body) expect(doc.paths[op.path]?.[method]?.requestBody).toBeDefined();
    }
    const park = doc.paths["/api/v1/cases"]?.post?.requestBody as {
      content: { "application/json": { schema: { required: string[] } } };
    };
    expect(park.content["application/json"].schema.required).toEqual(
      expect.arrayContaining(["operationId", "attemptId", "stage", "requestFingerprint", "evidence", "hold"]),
    );
  });
});
