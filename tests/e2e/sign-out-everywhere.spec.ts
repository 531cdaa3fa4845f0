import { type Browser, expect, type Page, test } from "@playwright/test";

const PASSWORD = "demo-recovery";

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-user")).toContainText(email);
}

/** Another browser holding a copy of this page's cookies, as someone who lifted them would. */
async function copyOfCookies(page: Page, browser: Browser): Promise<Page> {
  const other = await browser.newContext();
  await other.addCookies(await page.context().cookies());
  return other.newPage();
}

test.describe("ending sessions", () => {
  test("sign out everywhere ends this browser's session and every copy of it", async ({ page, browser }) => {
    await signIn(page, "operator@demo.local");
    const laptop = await copyOfCookies(page, browser);
    await laptop.goto("/profile");
    await expect(laptop.getByRole("heading", { name: "Sessions" })).toBeVisible();

    await page.goto("/profile");
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.getByRole("button", { name: "Sign out every session" }).click();
    await expect(page).toHaveURL(/\/sign-in/);

    await laptop.goto("/profile");
    await expect(laptop).toHaveURL(/\/sign-in/);
    await laptop.context().close();

    // Signing in again starts a session that works.
    await signIn(page, "operator@demo.local");
    await page.goto("/profile");
    await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  });

  test("a copy of a signed-out cookie no longer works", async ({ page, browser }) => {
    await signIn(page, "finance@demo.local");
    const copy = await copyOfCookies(page, browser);
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    await copy.goto("/profile");
    await expect(copy).toHaveURL(/\/sign-in/);
    await copy.context().close();
  });
});
