import { createHash } from "node:crypto";
import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";

const ADMIN_PAGES = [
  "/admin",
  "/admin/users",
  "/admin/api-keys",
  "/admin/worker-tokens",
  "/admin/prices",
  "/admin/providers",
  "/admin/alerts",
  "/admin/retention",
];
let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** A valid parking request (the same shape as the integration fixtures' parkInput). */
function parkBody() {
  const operationId = unique("order");
  return {
    operationId,
    attemptId: `${operationId}-a1`,
    stage: "polling",
    provider: "replicate",
    model: "omni-flash-720p",
    providerJobId: `job-${operationId}`,
    requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
    evidence: { summary: "status checks stopped answering", observedAt: "2026-11-29T10:00:00Z" },
    hold: { holdId: `hold-${operationId}`, amountMicros: 100_000, currency: "USD" },
  };
}

test.describe("admin console", () => {
  test("an admin creates an API key, sees it once, uses it, and revokes it", async ({ page, login, request }) => {
    await login("admin@demo.local");
    await page.goto("/admin/api-keys");
    await expect(
      page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "API keys" }),
    ).toHaveAttribute("aria-current", "page");
    const name = unique("shop");
    await page.getByLabel("Producer name").fill(name);
    await page.getByRole("button", { name: "Create API key" }).click();

    const reveal = page.getByTestId("secret-reveal");
    await expect(reveal).toBeVisible();
    await expect(reveal.getByRole("heading")).toBeFocused();
    const secret = await reveal.getByLabel("Secret").inputValue();
    expect(secret).toMatch(/^vrk_/);
    const prefix = secret.slice(0, 12);
    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row).toContainText(prefix);
    await expect(row).toContainText("active");

    await page.reload();
    await expect(page.getByTestId("secret-reveal")).toHaveCount(0);
    await expect(row).toContainText(prefix);
    expect(await page.content()).not.toContain(secret);

    const auth = { authorization: `Bearer ${secret}` };
    const parked = await request.post("/api/v1/cases", { headers: auth, data: parkBody() });
    expect(parked.status()).toBe(201);
    await page.reload();
    await expect(row.getByRole("cell").nth(2)).toContainText("UTC"); // last used

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: `Revoke ${name}` }).click();
    await expect(row).toContainText("revoked");
    await expect(row.getByRole("button", { name: "Revoke" })).toHaveCount(0);
    const refused = await request.post("/api/v1/cases", { headers: auth, data: parkBody() });
    expect(refused.status()).toBe(401);
  });

  test("the demo's producer key is shown with where it came from, and nothing to revoke", async ({ page, login }) => {
    await login("admin@demo.local");
    await page.goto("/admin/api-keys");
    const demo = page.getByTestId("demo-producer-key");
    await expect(demo.getByRole("heading")).toContainText("demo-shop");
    await expect(demo.getByRole("heading")).toContainText("not stored, cannot be revoked here");
    await expect(demo).toContainText("demo mode");
    await expect(demo).toContainText("00000000-0000-4000-8000-000000000001");
    await expect(demo.getByRole("button")).toHaveCount(0);
    // It is not listed as a key (there is no row, prefix or secret for it), yet the demo's cases name it.
    await expect(page.getByRole("row").filter({ hasText: "demo-shop" })).toHaveCount(0);
    const client = new pg.Client({ connectionString: await databaseUrl() });
    await client.connect();
    const { rows } = await client
      .query<{ producer: string }>("SELECT DISTINCT producer FROM operations WHERE operation_id LIKE 'demo-order-%'")
      .finally(() => client.end());
    expect(rows.map((row) => row.producer)).toEqual(["demo-shop"]);
  });

  test("an admin sets a producer's endpoint: https only, signing secret shown once", async ({ page, login }) => {
    await login("admin@demo.local");
    await page.goto("/admin/api-keys");
    const name = unique("hooks");
    await page.getByLabel("Producer name").fill(name);
    await page.getByRole("button", { name: "Create API key" }).click();
    await expect(page.getByTestId("secret-reveal")).toBeVisible();
    await page.getByRole("button", { name: "I have stored it" }).click();

    await page.getByLabel("Producer", { exact: true }).selectOption(name);
    const url = page.getByLabel("URL");
    await url.fill("http://hooks.example.com/x");
    await page.getByRole("button", { name: "Save endpoint" }).click();
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await expect(url).toBeFocused();
    await expect(page.getByText("must use https")).toBeVisible();

    await url.fill("https://hooks.example.com/video-recovery");
    await page.getByRole("button", { name: "Save endpoint" }).click();
    const reveal = page.getByTestId("secret-reveal");
    await expect(reveal).toBeVisible();
    const secret = await reveal.getByLabel("Secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = page.getByRole("row").filter({ hasText: "https://hooks.example.com/video-recovery" });
    await expect(row).toContainText(name);

    await page.reload();
    await expect(row).toContainText("enabled");
    expect(await page.content()).not.toContain(secret);
  });

  test("an admin creates a user (password shown once) and cannot lock themself out", async ({ page, login }) => {
    await login("admin@demo.local");
    await page.goto("/admin/users");
    const email = `${unique("new")}@example.com`;
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.getByText("choose at least one role")).toBeVisible();

    await page
      .getByRole("group", { name: "Roles", exact: true })
      .getByLabel(/^reviewer/)
      .check();
    await page.getByRole("button", { name: "Create user" }).click();
    const reveal = page.getByTestId("secret-reveal");
    await expect(reveal).toBeVisible();
    expect((await reveal.getByLabel("Secret").inputValue()).length).toBeGreaterThanOrEqual(20);
    await expect(page.getByRole("cell", { name: email, exact: true })).toBeVisible();

    const self = page.getByRole("row").filter({ hasText: "admin@demo.local" });
    await expect(self.getByRole("checkbox", { name: "admin" })).toBeDisabled();
    await expect(self.getByRole("button", { name: "Deactivate" })).toHaveCount(0);

    const created = page.getByRole("row").filter({ hasText: email });
    await created.getByRole("button", { name: "Deactivate" }).click();
    await created.getByRole("button", { name: `Deactivate ${email}` }).click();
    await expect(created).toContainText("deactivated");
    await expect(created.getByRole("button", { name: "Reactivate" })).toBeVisible();
  });

  test("an admin adds and edits a price and sees the duplicate cost", async ({ page, login }) => {
    await login("admin@demo.local");
    await page.goto("/admin/prices");
    const model = unique("model");
    const field = (name: string) => page.getByRole("textbox", { name, exact: true });
    // A closed list: a price for a provider the product does not know could never apply.
    await page.getByRole("combobox", { name: "Provider" }).selectOption("fal");
    await field("Model").fill(model);
    const price = field("Price");
    await price.fill("-1");
    await page.getByRole("button", { name: "Add price" }).click();
    await expect(price).toHaveAttribute("aria-invalid", "true");
    await expect(price).toBeFocused();

    await price.fill("0.25");
    await page.getByRole("button", { name: "Add price" }).click();
    const row = page.getByRole("row").filter({ hasText: model });
    await expect(row).toContainText("$0.25 each");

    await row.getByRole("link", { name: `Edit fal ${model}` }).click();
    await expect(field("Model")).toHaveValue(model);
    await expect(field("Model")).toHaveAttribute("readonly", "");
    await page.getByLabel("Charged").selectOption("per_second");
    await price.fill("0.022");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page).toHaveURL(/\/admin\/prices$/);
    await expect(row).toContainText("$0.022 / second");
    await expect(row).toContainText("$0.22 per 10 s video");
    await expect(page.getByRole("row").filter({ hasText: model })).toHaveCount(1);
  });

  test("an operator gets the 403 page on every admin page", async ({ page, login }) => {
    await login("operator@demo.local");
    for (const path of ADMIN_PAGES) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(403);
      await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Admin" })).toHaveCount(0);
    }
  });

  test("a user creates a personal token, uses it, and revokes it on the profile page", async ({
    page,
    login,
    request,
  }) => {
    await login("reviewer@demo.local");
    await page.goto("/profile");
    await expect(page.getByText("You have no personal access tokens.")).toBeVisible();
    const name = unique("script");
    await page.getByLabel(/^Name/).fill(name);
    await page.getByLabel("Expires").selectOption("7");
    await page.getByRole("button", { name: "Create token" }).click();
    const reveal = page.getByTestId("secret-reveal");
    await expect(reveal).toBeVisible();
    const secret = await reveal.getByLabel("Secret").inputValue();
    expect(secret).toMatch(/^vrp_/);

    const auth = { authorization: `Bearer ${secret}` };
    expect((await request.get("/api/v1/cases", { headers: auth })).status()).toBe(200);

    await page.reload();
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row).toContainText(secret.slice(0, 12));
    await expect(row).toContainText("active");
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: `Revoke ${name}` }).click();
    await expect(row).toContainText("revoked");
    expect((await request.get("/api/v1/cases", { headers: auth })).status()).toBe(401);
  });
});
