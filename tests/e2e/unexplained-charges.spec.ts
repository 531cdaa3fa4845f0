import { expect, test } from "./fixtures/login";
import { expectAccessibleEverywhere } from "./fixtures/page-checks";
import { importUsageCsv } from "./fixtures/usage";

// Decision 074: a provider charge no operation owns is listed for finance, who explains it as made
// outside the product; it is booked, leaves the list, and the ledger then equals the invoice. "XUH"
// is this spec's own test currency, so no other spec's lines or totals share it.
const CURRENCY = "XUH";
const run = Date.now().toString(36);

test("finance explains a charge no operation owns as made outside the product; the ledger then equals the invoice", async ({
  page,
  login,
}) => {
  const job = `script-${run}`;
  await login("finance@demo.local");
  await page.goto("/finance/usage");
  const csv = `provider_job_id,amount,currency,time\n${job},0.42,${CURRENCY},2026-12-01T10:00:00Z\n`;
  await importUsageCsv(page, "replicate", csv);
  await expect(page.getByRole("status").filter({ hasText: "Read 1 line" })).toContainText("1 unexplained");

  await page.getByRole("link", { name: "Charges no operation explains" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Charges no operation explains" })).toBeVisible();
  await page.getByRole("navigation", { name: "Filter by provider" }).getByRole("link", { name: "replicate" }).click();
  await expect(page).toHaveURL(/provider=replicate/);
  const row = page.locator(`tr[data-charge="${job}"]`);
  await expect(row).toContainText(`${CURRENCY} 0.42`);
  const balance = page.locator(`tr[data-balance="replicate:${CURRENCY}"]`);
  await expect(balance.locator("[data-difference]")).toContainText("0.42");

  // With the list filled, the page passes axe at both widths in both schemes and fits a phone.
  await expectAccessibleEverywhere(page, () => expect(row).toBeVisible());

  await row.getByRole("button", { name: "Made outside the product…" }).click();
  await row.getByRole("button", { name: "Review…" }).click();
  await expect(row.getByText("Say why it was made outside the product")).toBeVisible();
  await row.getByLabel("Why it was made outside the product").fill("a test render from our own script");
  await row.getByRole("button", { name: "Review…" }).click();
  await row.getByRole("button", { name: "Book as outside charge" }).click();
  await expect(page.getByTestId("finance-announcement")).toContainText(`replicate job ${job} is explained`);
  await expect(row).toHaveCount(0);
  await expect(balance.locator("[data-difference]")).toContainText("0.00");
});
