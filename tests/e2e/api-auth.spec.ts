import { API_OPERATIONS } from "@/lib/api/openapi";
import { expect, test } from "./fixtures/login";

const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";
const urlOf = (path: string) => path.replace("{id}", SAMPLE_ID).replace("{operationId}", "order-1");

test.describe("the HTTP API refuses unauthenticated and forged requests", () => {
  for (const op of API_OPERATIONS) {
    test(`${op.method.toUpperCase()} ${op.path} without credentials is 401`, async ({ request }) => {
      const response = await request.fetch(urlOf(op.path), {
        method: op.method,
        data: op.method === "post" ? {} : undefined,
      });
      expect(response.status()).toBe(401);
      expect(await response.json()).toEqual({ error: { code: "unauthenticated", message: expect.any(String) } });
    });
  }

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
    const doc = await (await request.get("/api/v1/openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toHaveLength(new Set(API_OPERATIONS.map((op) => op.path)).size);
  });
});
