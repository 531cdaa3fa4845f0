import { expect, test } from "./fixtures/login";
import { expectAccessibleEverywhere } from "./fixtures/page-checks";

// Decision 066: cases opened, resolved and parked again per hour over two weeks, as an SVG with a
// title and description and the same figures as a table, filtered by stage and provider.
test("an operator reads two weeks of history as a chart and as a table, by stage", async ({ page, login }) => {
  test.slow();
  await login("operator@demo.local");
  await page.goto("/overview");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "History" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "History" })).toBeVisible();
  const chart = page.getByRole("img", { name: /Cases per hour over the last 14 days, every stage, every provider/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator("title")).toHaveCount(1);
  await expect(chart.locator("desc")).toContainText("In all:");

  await page.getByText("Show the figures as a table").click();
  const table = page.getByRole("table", { name: /Cases per hour/ });
  const totals = table.getByRole("row", { name: /In all/ });
  await expect(totals).toBeVisible();
  // The table's totals are the chart's: its description names the same figures.
  const description = (await chart.locator("desc").textContent()) ?? "";
  const opened = Number((await totals.getByRole("cell").nth(0).textContent())?.replaceAll(",", ""));
  expect(description).toContain(`${opened.toLocaleString("en-US")} opened`);
  await expectAccessibleEverywhere(page, () => expect(chart).toBeVisible());

  await page.getByRole("combobox", { name: "Stage", exact: true }).selectOption({ label: "Delivery" });
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await expect(page).toHaveURL(/stage=delivery/);
  await expect(page.getByRole("img", { name: /Delivery, every provider/ })).toBeVisible();
});
