import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";

// On a 390 px phone every page fits its width (no sideways scrolling), and the queue folds its
// filters behind one button so the cases come first.
const PAGES: { email: string; paths: string[] }[] = [
  { email: "operator@demo.local", paths: ["/overview", "/queue", "case", "/profile"] },
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
      const overflow = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        view: document.documentElement.clientWidth,
        widest: [...document.querySelectorAll("body *")]
          .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
          .slice(0, 3)
          .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)}`),
      }));
      expect(
        overflow.scroll,
        `${path} is ${overflow.scroll} px wide: ${overflow.widest.join(", ")}`,
      ).toBeLessThanOrEqual(overflow.view);
    }
  });
}

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
