import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";

// An admin sets the retention policy (decision 033), globally and for one producer, sees what a run
// would touch, and finds the policy and the next run on the overview; the policy is removed at the
// end so no other journey's cases are ever redacted.
test("an admin sets a retention policy, sees the dry run, and the overview shows the policy and the next run", async ({
  page,
  login,
}) => {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    await login("admin@demo.local");
    await page.goto("/admin/retention");
    await expect(page.getByTestId("retention-policy")).toContainText("Global policy: off");
    const form = page.getByRole("form", { name: "Retention policy" });
    const days = form.getByLabel("Days after resolution");
    const save = form.getByRole("button", { name: "Save policy" });

    await days.fill("forever");
    await save.click();
    await expect(form.getByText(/a number of days/)).toBeVisible();

    await days.fill("3650");
    await save.click();
    await expect(form.getByRole("status")).toHaveText(
      "Saved: every producer without its own policy keeps customer text and videos 3650 days after resolution.",
    );
    await form.getByLabel("Producer").fill("shop-app");
    await days.fill("off");
    await save.click();
    await expect(form.getByRole("status")).toHaveText("Saved: retention off for shop-app.");

    await page.reload();
    await expect(page.getByTestId("retention-policy")).toContainText("Global policy: 3650 days after resolution");
    await expect(page.getByTestId("retention-policy")).toContainText("Next run:");
    await expect(page.getByRole("table", { name: "Producers with a policy of their own" })).toContainText("shop-app");
    // The demo's cases were resolved days ago, not ten years: a run now would touch nothing.
    await expect(page.getByTestId("retention-dry-run")).toContainText("0 cases");
    await expect(page.getByTestId("retention-dry-run")).toContainText("0 B of videos");

    const dryRun = await page.request.post("/api/v1/admin/retention/dry-run", {
      headers: { origin: new URL(page.url()).origin },
    });
    expect(dryRun.status()).toBe(200);
    expect(await dryRun.json()).toEqual({ cases: 0, operations: 0, oldestResolvedAt: null, bytes: 0 });

    await page.goto("/overview");
    const retention = page.getByText("Retention of customer text and videos").locator("..");
    await expect(retention).toContainText("3650 days after resolution (1 producer with its own)");
    await expect(retention).toContainText("next run");

    // Finance may not change it, through the API either.
    await login("finance@demo.local");
    const refused = await page.request.put("/api/v1/admin/retention", {
      data: { producer: null, days: 1 },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(refused.status()).toBe(403);
  } finally {
    await client.query("DELETE FROM retention_policies");
    await client.end();
  }
});
