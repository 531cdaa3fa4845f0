import { expect, test } from "./fixtures/login";
import { expectAccessibleEverywhere } from "./fixtures/page-checks";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Decision 073: finance uploads a provider's usage export and sees the gap between what was reserved
// and what the provider charged. "XUG" is this spec's own test currency, so no other spec's totals
// or rows share it.
const CURRENCY = "XUG";
const run = Date.now().toString(36);

test("finance uploads a usage CSV; the hold settles at the provider's charge and the gap shows", async ({
  page,
  login,
  request,
}) => {
  // Minting the key starts a Node process and parks a case before the browser work begins.
  test.setTimeout(120_000);
  const apiKey = createApiKey(`e2e-usage-${run}`);
  const operationId = `e2e-usage-${run}`;
  await parkThroughApi(request, apiKey, { operationId, stage: "polling", amountMicros: 1_000_000, currency: CURRENCY });

  await login("finance@demo.local");
  const response = await page.goto("/finance/usage");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1, name: "Provider usage" })).toBeVisible();

  const csv = `provider_job_id,amount,currency,time\njob-${operationId},0.80,${CURRENCY},2026-12-01T10:00:00Z\nnobody-${run},0.10,${CURRENCY},2026-12-01T10:00:00Z\n`;
  await page.getByLabel("Provider", { exact: true }).selectOption("replicate");
  await page.getByLabel("File shape", { exact: true }).selectOption("generic");
  await page
    .getByLabel("Usage file (CSV)")
    .setInputFiles({ name: "usage.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Read 2 lines" })).toContainText(
    "1 matched a hold, 1 unexplained",
  );

  const row = page.locator(`tr[data-gap-row="${CURRENCY}"]`);
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("XUG 1.00");
  await expect(row).toContainText("XUG 0.80");
  await expect(row.locator("[data-gap]")).toContainText("0.20");
  await expect(page.getByRole("table", { name: /Usage lines no hold explains/ })).toContainText(`nobody-${run}`);

  // The same file again changes nothing.
  await page
    .getByLabel("Usage file (CSV)")
    .setInputFiles({ name: "usage.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: "Read 2 lines" })).toContainText("0 new, 2 imported before");
  await expect(row.locator("[data-gap]")).toContainText("0.20");

  // With its tables filled, the page passes axe at both widths in both schemes and fits a phone.
  await expectAccessibleEverywhere(page, () => expect(row).toBeVisible());
});
