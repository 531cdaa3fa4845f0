import { expect, test } from "./fixtures/login";

test.describe("authorisation on the server", () => {
  for (const role of ["operator", "reviewer", "finance"] as const) {
    test(`a ${role} gets a 403 page for the admin pages`, async ({ page, login }) => {
      await login(`${role}@demo.local`);
      const response = await page.goto("/admin/users");
      expect(response?.status()).toBe(403);
      await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
      await expect(page.getByText("admin@demo.local")).toHaveCount(0);
    });
  }

  test("an admin opens the user list", async ({ page, login }) => {
    await login("admin@demo.local");
    const response = await page.goto("/admin/users");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("cell", { name: "operator@demo.local" })).toBeVisible();
  });

  test("a forged session cookie is not a session", async ({ page }) => {
    await page
      .context()
      .addCookies([{ name: "next-auth.session-token", value: "forged", domain: "localhost", path: "/" }]);
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/sign-in/);
  });
});
