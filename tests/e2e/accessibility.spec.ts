import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";

// Every console page each role works on, and the sign-in page, checked by axe in both colour
// schemes: no serious or critical violation (WCAG 2.1 A and AA rules, colour contrast included).
// The pages with wide tables are checked on a phone too, where those tables scroll (axe's
// scrollable-region-focusable: a region that scrolls must be reachable by keyboard).
const PHONE_JOURNEYS: { email: string; paths: string[] }[] = [
  { email: "reviewer@demo.local", paths: ["case", "case-evidence"] },
  { email: "finance@demo.local", paths: ["/finance"] },
];
const JOURNEYS: { email: string | null; paths: string[] }[] = [
  { email: null, paths: ["/sign-in"] },
  { email: "operator@demo.local", paths: ["/overview", "/queue", "/profile"] },
  { email: "reviewer@demo.local", paths: ["/queue?stage=submission_uncertain", "case"] },
  { email: "finance@demo.local", paths: ["/finance"] },
  { email: "admin@demo.local", paths: ["/admin", "/admin/providers", "/admin/alerts", "/admin/retention", "/alerts"] },
  { email: "viewer@demo.local", paths: ["case"] },
];

const CHECKS = [
  ...JOURNEYS.map((journey) => ({ ...journey, phone: false })),
  ...PHONE_JOURNEYS.map((journey) => ({ ...journey, phone: true })),
];

for (const scheme of ["light", "dark"] as const) {
  for (const { email, paths, phone } of CHECKS) {
    test(`${email?.split("@")[0] ?? "a signed-out visitor"}'s pages have no serious accessibility violations (${scheme}${phone ? ", 390 px" : ""})`, async ({
      page,
      login,
    }) => {
      // axe takes seconds per page on a loaded two-core machine, and a role checks up to three pages.
      test.slow();
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: scheme });
      if (email) await login(email);
      for (const path of paths) {
        await openPage(page, path);
        const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
        const serious = results.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map(
            (v) =>
              `${v.id} on ${path}: ${v.nodes
                .map((n) => n.target.join(" "))
                .slice(0, 3)
                .join(", ")}`,
          );
        expect(serious, serious.join("\n")).toEqual([]);
      }
    });
  }
}

test("the browser finds the console's icon", async ({ request }) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/image\//);
});
