import { expect, test } from "./fixtures/csp-watch";

const PASSWORD = "demo-recovery";
const ROLES = ["operator", "reviewer", "finance", "admin", "viewer"] as const;

test.describe("signing in", () => {
  for (const role of ROLES) {
    test(`the demo ${role} signs in and sees the navigation for that role`, async ({ page }) => {
      await page.goto("/sign-in");
      await expect(page.getByRole("status")).toContainText("Demo mode");
      await page.getByLabel("Email").fill(`${role}@demo.local`);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      const nav = page.getByRole("navigation", { name: "Main" });
      await expect(nav.getByRole("link", { name: "Profile" })).toBeVisible();
      await expect(page.getByTestId("signed-in-user")).toContainText(`${role}@demo.local`);
      await expect(page.getByLabel("Roles")).toHaveText(role);
      await expect(nav.getByRole("link", { name: "Admin" })).toHaveCount(role === "admin" ? 1 : 0);
    });
  }

  test("a wrong password is refused with a message that reveals nothing", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("finance@demo.local");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("Invalid email or password.");
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test("an unknown email gets the same message", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("nobody@demo.local");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("Invalid email or password.");
  });

  test("an unauthenticated visit to a console page goes to sign-in", async ({ page }) => {
    for (const path of ["/profile", "/admin/users", "/"]) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/sign-in/);
    }
  });

  test("signing out ends the session", async ({ page }) => {
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("reviewer@demo.local");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/sign-in/);
  });
});
