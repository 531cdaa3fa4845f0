import { expect, test } from "./fixtures/login";
import { expectAccessibleEverywhere } from "./fixtures/page-checks";

// Decision 066: an admin changes a person's roles and reads it on the activity page, in words,
// newest first, filtered by kind; the page is linked in the navigation for admins only.
test("an admin reads a role change in the activity feed, filtered by kind", async ({ page, login }) => {
  test.slow();
  await login("admin@demo.local");
  await page.goto("/admin/users");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();

  await page.getByRole("link", { name: "People" }).click();
  await expect(page).toHaveURL(/kind=people/);
  await expect(page.getByRole("link", { name: "People" })).toHaveAttribute("aria-current", "page");
  const feed = page.getByRole("table", { name: "Changes, newest first" });
  const rows = feed.getByRole("row");
  if ((await rows.count()) > 0) {
    // Every row of this filter is a change to a person, in words.
    await expect(feed).not.toContainText("_");
  }
  await expectAccessibleEverywhere(page, () => expect(page.getByRole("heading", { name: "Activity" })).toBeVisible());

  await page.getByRole("link", { name: "Retention" }).click();
  await expect(page).toHaveURL(/kind=retention/);
  await expect(page.getByRole("link", { name: "Retention" })).toHaveAttribute("aria-current", "page");
});

test("the activity page is not for an operator", async ({ page, login }) => {
  await login("operator@demo.local");
  await page.goto("/overview");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" })).toHaveCount(0);
  const response = await page.goto("/activity");
  expect(response?.status()).toBe(403);
});
