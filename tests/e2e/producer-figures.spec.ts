import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// An agency that runs two shops reads each shop's figures on the overview and finance pages
// (decision 034). Both shops are new in this run and park in the test currency, so what the pages
// show for one of them is exactly what it parked.
const run = Date.now().toString(36);
const CURRENCY = "XTS";
const shopA = `e2e-agency-a-${run}`;
const shopB = `e2e-agency-b-${run}`;

test("picking a producer on the overview and finance pages shows that producer's figures", async ({
  page,
  login,
  request,
}) => {
  // Minting two keys starts two Node processes before the browser work begins.
  test.setTimeout(120_000);
  const park = (key: string, name: string, stage: "polling" | "submission_uncertain", amountMicros: number) =>
    parkThroughApi(request, key, {
      operationId: `e2e-${run}-${name}`,
      stage,
      amountMicros,
      currency: CURRENCY,
      holdId: `hold-${name}-${run}`,
    });
  const keyA = createApiKey(shopA);
  const keyB = createApiKey(shopB);
  await park(keyA, "a-polling", "polling", 1_000_000);
  await park(keyB, "b-polling", "polling", 2_000_000);
  await park(keyB, "b-uncertain", "submission_uncertain", 500_000);

  await login("finance@demo.local");
  await page.goto("/finance");
  const picker = page.getByRole("combobox", { name: "Producer" });
  await picker.selectOption(shopA);
  await expect(page).toHaveURL(new RegExp(`[?&]producer=${shopA}`));
  const totals = page.getByTestId(`totals-${CURRENCY}`);
  await expect(totals.getByTestId("held")).toContainText("XTS 1.00");
  await expect(page.getByText("No exposure:")).toBeVisible();

  await picker.selectOption(shopB);
  await expect(page).toHaveURL(new RegExp(`[?&]producer=${shopB}`));
  await expect(totals.getByTestId("held")).toContainText("XTS 2.50");
  await expect(page.getByTestId("exposure")).toContainText("XTS 0.50");
  // The export sends the producer along with the range.
  await expect(page.locator('form[aria-label="Export to CSV"] input[name="producer"]')).toHaveValue(shopB);

  await page.goto("/overview");
  const stages = page.getByRole("table", { name: "Open cases by stage" });
  await page.getByRole("combobox", { name: "Producer" }).selectOption(shopA);
  await expect(page).toHaveURL(new RegExp(`[?&]producer=${shopA}`));
  await expect(stages.locator("tbody tr")).toHaveCount(1);
  await expect(stages.locator("tbody tr").first()).toContainText("Job to check");
  await expect(stages.locator("tbody tr").first()).toContainText("XTS 1.00");

  await page.getByRole("combobox", { name: "Producer" }).selectOption(shopB);
  await expect(page).toHaveURL(new RegExp(`[?&]producer=${shopB}`));
  await expect(stages.locator("tbody tr")).toHaveCount(2);
  await expect(stages).toContainText("XTS 2.00");
  await expect(stages).toContainText("XTS 0.50");
  await expect(stages.getByRole("link", { name: "Job to check" })).toHaveAttribute(
    "href",
    new RegExp(`producer=${shopB}`),
  );

  // Every producer again: the demo data's cases are back.
  await page.getByRole("combobox", { name: "Producer" }).selectOption("");
  await expect(page).not.toHaveURL(/producer=/);
  // The figures stream in behind a placeholder after the URL changes, so this waits for them.
  await expect(async () => expect(await stages.locator("tbody tr").count()).toBeGreaterThan(2)).toPass();
});
