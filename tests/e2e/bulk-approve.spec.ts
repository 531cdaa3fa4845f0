import { PROGRESS_MS } from "./fixtures/bulk-progress";
import { expect, test } from "./fixtures/login";

test("a reviewer approves retry_delivery in bulk for a filter, seeing count and money first", async ({
  page,
  login,
}) => {
  await login("reviewer@demo.local");
  await page.goto("/queue?stage=delivery&state=parked");
  // The rows stream in behind the page's frame.
  await expect(page.getByTestId("queue-row").first()).toBeVisible();
  const rows = await page.getByTestId("queue-row").count();
  expect(rows).toBeGreaterThan(2);
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  // The bulk box shows once a case is picked (decision 063); it then offers the whole view too.
  await page.getByTestId("queue-row").first().getByRole("checkbox").check();
  await bulk.getByLabel("every case matching this view").check();
  await bulk.getByLabel("Action", { exact: true }).selectOption("approve");
  await bulk.getByLabel("Evidence for every case").fill("Storage outage fixed at 10:42; assets can be fetched again.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: `Approve ${rows} cases?` })).toBeVisible();
  await expect(bulk).toContainText("Money on hold involved: $");
  await bulk.getByRole("button", { name: `Approve ${rows}` }).click();
  await expect(bulk.getByRole("status")).toContainText(`Done for ${rows} cases; skipped 0.`, { timeout: PROGRESS_MS });

  await page.goto("/queue?stage=delivery&state=ready");
  await expect(page.getByTestId("queue-row")).toHaveCount(rows);
  await page.getByTestId("queue-row").first().getByRole("link").click();
  await expect(page.getByTestId("timeline")).toContainText("Storage outage fixed");
});
