import { expect, test } from "./fixtures/login";

test("a reviewer approves retry_delivery in bulk for a filter, seeing count and money first", async ({
  page,
  login,
}) => {
  await login("reviewer@demo.local");
  await page.goto("/queue?stage=generation_failed");
  await expect(page.getByRole("heading", { name: /Bulk approve/ })).toHaveCount(0);
  await page.goto("/queue?stage=submission_uncertain");
  await expect(page.getByRole("heading", { name: /Bulk approve/ })).toHaveCount(0);

  await page.goto("/queue?stage=delivery&state=parked");
  const rows = await page.getByTestId("queue-row").count();
  expect(rows).toBeGreaterThan(2);
  const bulk = page.getByRole("region", { name: /Bulk approve/ });
  await bulk.getByLabel(/all parked delivery cases matching this filter/).check();
  await bulk
    .getByLabel("Evidence for every approval")
    .fill("Storage outage fixed at 10:42; assets can be fetched again.");
  await bulk.getByRole("button", { name: "Review bulk approval" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`for ${rows} cases`);
  await expect(dialog).toContainText("Money on hold involved: $");
  await dialog.getByRole("button", { name: `Approve ${rows}` }).click();
  await expect(bulk.getByRole("status")).toContainText(`Approved ${rows}; skipped 0`);

  await page.goto("/queue?stage=delivery&state=ready");
  await expect(page.getByTestId("queue-row")).toHaveCount(rows);
  await page.getByTestId("queue-row").first().getByRole("link").click();
  await expect(page.getByTestId("timeline")).toContainText("Storage outage fixed");
});
