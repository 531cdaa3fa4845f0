import { expect, test } from "./fixtures/login";

test("an operator reads the overview's charts: axis titles, legends, tooltips by pointer and keyboard, the data as tables", async ({
  page,
  login,
}) => {
  await login("operator@demo.local");
  await page.goto("/overview");

  const ages = page.getByRole("figure", { name: "Open cases by age and stage" });
  await expect(ages.getByTestId("y-axis-title")).toHaveText("Open cases");
  await expect(ages.getByTestId("x-axis-title")).toHaveText("Age (time since the case opened)");
  await expect(ages.getByRole("list", { name: "Legend" })).toContainText("Uncertain submission");

  // Hovering a bar names its stage, its age bucket and its count.
  const bars = ages.locator("g[aria-label]");
  expect(await bars.count()).toBeGreaterThan(0);
  await bars.first().hover();
  const ageTip = ages.getByTestId("chart-tooltip");
  await expect(ageTip).toBeVisible();
  await expect(ageTip).toContainText(/(Uncertain submission|Job to check|Delivery|Generation failed)/);
  await expect(ageTip).toContainText(/old: \d+ cases?/);

  const held = page.getByRole("figure", { name: "Money on hold over the last 14 days" });
  await expect(held.getByTestId("y-axis-title")).toHaveText(/^Money on hold \([A-Z]{3}(, [A-Z]{3})*\)$/);
  await expect(held.getByTestId("x-axis-title")).toHaveText("Day (UTC)");
  await expect(held.getByRole("list", { name: "Legend" })).toContainText(/On hold in [A-Z]{3}/);

  // The same figures as a table for screen readers; its last row is the day the last point is labelled with.
  const table = held.getByRole("table", { name: /Money on hold at the end of each day/ });
  const lastDay = await table.locator("tbody tr").last().locator("th").textContent();
  const lastDayName = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" }).format(
    new Date(`${lastDay}T00:00:00Z`),
  );
  await expect(held.getByTestId("last-point-label").first()).toContainText(`${lastDayName}: `);

  // Keyboard: one point is in the tab order (the latest); focus shows its tooltip, arrows move along the line.
  const points = held.locator("g[aria-label]");
  await expect(held.locator('g[aria-label][tabindex="0"]')).toHaveCount(1);
  const latest = held.locator('g[aria-label][tabindex="0"]');
  await expect(latest).toHaveAttribute("aria-label", new RegExp(`now \\(${lastDayName}\\)`));
  await latest.focus();
  const heldTip = held.getByTestId("chart-tooltip");
  await expect(heldTip).toContainText(/On hold in [A-Z]{3}/);
  await expect(heldTip).toContainText(`now (${lastDayName}): `);
  await page.keyboard.press("ArrowLeft");
  await expect(heldTip).toContainText(/end of \d{1,2} [A-Z][a-z]{2}: /);
  const focused = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
  expect(focused).toMatch(/end of \d{1,2} [A-Z][a-z]{2}/);
  expect(await points.count()).toBeGreaterThan(1);
  await page.keyboard.press("Escape");
  await expect(heldTip).toHaveCount(0);
});
