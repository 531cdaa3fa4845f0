import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";
import { WIDTHS } from "./fixtures/page-checks";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

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
  { email: "viewer@demo.local", paths: ["case", "/bulk-jobs"] },
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

// The bulk panels (decisions 063 and 065) appear only after a pick or a click, so the page checks
// above never see them: the queue's bulk box, its confirmation and its job's progress, the job's own
// page and the list of jobs, and finance's bulk decision, each at both widths and in both schemes.
test("the bulk panels have no serious accessibility violations at 390 px and in the dark", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(600_000);
  const run = Date.now().toString(36);
  const producer = `e2e-bulk-a11y-${run}`;
  const apiKey = createApiKey(producer);
  for (const n of [1, 2])
    await parkThroughApi(request, apiKey, {
      operationId: `e2e-bulk-a11y-${run}-${n}`,
      stage: "polling",
      amountMicros: 100_000,
      currency: "XFD",
    });
  await login("reviewer@demo.local");
  await page.goto(`/queue?producer=${producer}&state=parked`);
  await expect(page.locator("table[data-keys=on]")).toBeVisible();
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  await page.getByTestId("queue-row").first().getByRole("checkbox").check();
  await panelAccessible(page, '[aria-labelledby="bulk-heading"]', () => expect(bulk).toBeVisible());

  await bulk.getByLabel("every case matching this view").check();
  await bulk.getByLabel("Action", { exact: true }).selectOption("escalate");
  await bulk.getByLabel("Evidence for every case").fill("Provider incident INC-4100: a lead should decide.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  const confirm = bulk.getByRole("heading", { name: "Escalate 2 cases?" });
  await panelAccessible(page, '[aria-labelledby="bulk-heading"]', () => expect(confirm).toBeVisible());

  // One a minute: the job is still running while it is checked, its cancel button showing.
  await bulk.getByLabel("Pace").selectOption("one_a_minute");
  await bulk.getByRole("button", { name: "Escalate 2" }).click();
  const running = bulk.getByTestId("bulk-job").getByRole("status");
  await panelAccessible(page, '[aria-labelledby="bulk-heading"]', () =>
    expect(running).toContainText("of 2 done", { timeout: 30_000 }),
  );

  await page.goto("/bulk-jobs");
  const link = page.getByRole("link", { name: "escalate, 2 cases" }).first();
  await panelAccessible(page, "main", () => expect(link).toBeVisible());
  await link.click();
  const job = page.getByTestId("bulk-job");
  await panelAccessible(page, "main", () => expect(job.getByRole("status")).toContainText("of 2 done"));
  await job.getByRole("button", { name: "Cancel the rest" }).click();
  await expect(job.getByRole("status")).toContainText("Cancelled", { timeout: 30_000 });

  await login("finance@demo.local");
  await page.goto("/finance?view=needs_decision");
  const decide = page.getByRole("region", { name: "Decide these holds together" });
  await panelAccessible(page, '[aria-labelledby="bulk-decide-heading"]', () => expect(decide).toBeVisible());
  await decide.getByLabel("Accounting note for every hold").fill("Month-end close");
  await decide.getByLabel("Evidence for every hold").fill("Provider invoice INV-2026-12");
  await decide.getByRole("button", { name: "Review what would happen" }).click();
  await panelAccessible(page, '[aria-labelledby="bulk-decide-heading"]', () =>
    expect(decide.getByText(/Nothing to do|holds\?/).first()).toBeVisible(),
  );
});

/**
 * One panel (axe told to look inside it alone, so a loaded machine checks it in seconds) at 390 px
 * in both schemes and at full width in the dark; at 390 px the page no wider than the screen.
 */
async function panelAccessible(page: Page, selector: string, ready: () => Promise<void>) {
  const runs = [
    { size: WIDTHS[1], colorScheme: "light" },
    { size: WIDTHS[1], colorScheme: "dark" },
    { size: WIDTHS[0], colorScheme: "dark" },
  ] as const;
  for (const { size, colorScheme } of runs) {
    await page.setViewportSize(size);
    await page.emulateMedia({ colorScheme });
    await ready();
    const results = await new AxeBuilder({ page })
      .include(selector)
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
      .analyze();
    const serious = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${size.width} px, ${colorScheme}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3)}`);
    expect(serious, serious.join("\n")).toEqual([]);
    if (size.width === 390) {
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        view: document.documentElement.clientWidth,
      }));
      expect(widths.scroll, `the page is wider than a 390 px screen (${selector})`).toBeLessThanOrEqual(widths.view);
    }
  }
  await page.setViewportSize(WIDTHS[0]);
  await page.emulateMedia({ colorScheme: "light" });
}

test("the browser finds the console's icon", async ({ request }) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/image\//);
});
