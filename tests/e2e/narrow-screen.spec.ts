import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";
import { expectFitsWidth, expectScrollRegionsReachable } from "./fixtures/screen";

// On a 390 px phone every page fits its width (no sideways scrolling: long IDs wrap, wide tables
// scroll inside a labelled region a keyboard can reach), the header is one line with the navigation
// behind a Menu button, and the queue folds its filters behind one button so the cases come first.
const PAGES: { email: string; paths: string[] }[] = [
  { email: "operator@demo.local", paths: ["/overview", "/queue", "case", "/profile", "/bulk-jobs"] },
  { email: "reviewer@demo.local", paths: ["case-evidence"] },
  { email: "finance@demo.local", paths: ["/finance"] },
  {
    email: "admin@demo.local",
    paths: ["/admin", "/admin/users", "/admin/api-keys", "/admin/prices", "/admin/providers", "/admin/alerts"],
  },
];

test.use({ viewport: { width: 390, height: 844 } });

for (const { email, paths } of PAGES) {
  test(`${email.split("@")[0]}'s pages fit a 390 px screen`, async ({ page, login }) => {
    test.setTimeout(90_000);
    await login(email);
    for (const path of paths) {
      await openPage(page, path);
      await expectFitsWidth(page, path);
      await expectScrollRegionsReachable(page, path);
    }
  });
}

// Wide tables scroll inside their region at both widths and in both colour schemes, never the page.
for (const width of [390, 1280] as const) {
  for (const scheme of ["light", "dark"] as const) {
    test(`finance's tables and the evidence packet scroll only inside named regions at ${width} px (${scheme})`, async ({
      page,
      login,
    }) => {
      test.setTimeout(90_000);
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.emulateMedia({ colorScheme: scheme });
      await login("finance@demo.local");
      for (const path of ["/finance", "case", "case-evidence"]) {
        await openPage(page, path);
        await expectFitsWidth(page, path);
        await expectScrollRegionsReachable(page, path);
      }
    });
  }
}

test("the phone header is one line, with the navigation behind a Menu button", async ({ page, login }) => {
  await login("operator@demo.local");
  await page.goto("/queue");
  const banner = page.getByRole("banner");
  expect((await banner.boundingBox())?.height ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(64);
  const main = page.getByRole("navigation", { name: "Main" });
  await expect(main).toBeHidden();
  const menu = banner.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(main.getByRole("link", { name: "Profile" })).toBeVisible();
  await expect(banner.getByRole("button", { name: "Sign out" })).toBeVisible();
  await main.getByRole("link", { name: "Profile" }).click();
  await expect(page.getByRole("heading", { name: "Times" })).toBeVisible();
  // The next page starts with its content, the menu folded again.
  await expect(main).toBeHidden();
});

test("the queue on a phone shows cases first and its filters behind one button", async ({ page, login }) => {
  await login("operator@demo.local");
  await page.goto("/queue");
  const filters = page.getByRole("form", { name: "Filter cases" });
  await expect(filters.getByLabel("Search IDs")).toBeVisible();
  await expect(filters.getByLabel("Producer")).toBeHidden();
  await filters.getByRole("button", { name: /Filters/ }).click();
  await expect(filters.getByLabel("Producer")).toBeVisible();
  await filters.getByLabel("State").selectOption("parked");
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "state=parked");
  await expect(filters.getByRole("button", { name: "Filters (1)" })).toBeVisible();
});
