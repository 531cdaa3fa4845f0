import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "./fixtures/login";

const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";
const urlOf = (path: string) => path.replace("{id}", SAMPLE_ID).replace("{operationId}", "order-1");

const NOT_DOCUMENTED = ["auth/[...nextauth]", "metrics", "v1/openapi.json"].map((dir) => path.join(dir, "route.ts"));
const API_ROUTE_FILES = readdirSync(path.resolve("app/api"), { recursive: true, encoding: "utf8" }).filter(
  (file) => path.basename(file) === "route.ts" && !NOT_DOCUMENTED.includes(file),
).length;

type OpenApi = { openapi: string; paths: Record<string, Record<string, unknown>> };

// The routes come from the served OpenAPI document, which lists exactly the route table
// (tests/unit/route-table.test.ts); the table itself loads the server's modules, which a test
// runner outside the app cannot.
test.describe("the HTTP API refuses unauthenticated and forged requests", () => {
  test("every documented route without credentials is 401", async ({ request }) => {
    const doc = (await (await request.get("/api/v1/openapi.json")).json()) as OpenApi;
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
    );
    expect(operations).toContainEqual({ method: "POST", path: "/api/worker/tick" });
    for (const op of operations) {
      const response = await request.fetch(urlOf(op.path), {
        method: op.method,
        data: op.method === "POST" ? {} : undefined,
      });
      expect.soft(response.status(), `${op.method} ${op.path}`).toBe(401);
      expect
        .soft(await response.json(), `${op.method} ${op.path}`)
        .toEqual({ error: { code: "unauthenticated", message: expect.any(String) } });
    }
  });

  test("a forged bearer token is 401, and the answer has no stack trace", async ({ request }) => {
    const response = await request.post("/api/v1/cases", {
      headers: { authorization: "Bearer vrk_forged" },
      data: { operationId: "x" },
    });
    expect(response.status()).toBe(401);
    expect(await response.text()).not.toMatch(/at .*\.ts|node_modules/);
  });

  test("a signed-in operator reads cases but cannot approve, and a cross-origin POST is refused", async ({
    page,
    login,
  }) => {
    await login("operator@demo.local");
    await page.goto("/profile");
    const list = await page.request.get("/api/v1/cases");
    expect(list.status()).toBe(200);
    const approve = await page.request.post(`/api/v1/cases/${SAMPLE_ID}/approve`, {
      data: { action: "resume_poll", evidence: "x" },
      headers: { origin: "http://localhost:3100" },
    });
    expect(approve.status()).toBe(403);
    await login("reviewer@demo.local");
    const forged = await page.request.post(`/api/v1/cases/${SAMPLE_ID}/notes`, {
      data: { text: "from another site" },
      headers: { origin: "https://evil.example" },
    });
    expect(forged.status()).toBe(403);
    expect((await forged.json()).error.code).toBe("forbidden");
  });

  test("the OpenAPI document is public and complete", async ({ request }) => {
    const doc = (await (await request.get("/api/v1/openapi.json")).json()) as OpenApi;
    expect(doc.openapi).toBe("3.1.0");
    // Every route file under app/api but the sign-in, metrics and document routes is a documented path.
    expect(Object.keys(doc.paths)).toHaveLength(API_ROUTE_FILES);
  });
});
