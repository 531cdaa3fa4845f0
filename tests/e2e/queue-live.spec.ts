import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// The queue is live: a case a producer parks appears without a reload, and the keyboard cursor
// stays on the case it was on while rows arrive above it; a case opened from the view knows its neighbours.
const run = Date.now().toString(36);

test("a parked case appears in an open queue without a reload; the cursor keeps its case", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const apiKey = createApiKey(`e2e-live-${run}`);
  const park = (name: string) =>
    parkThroughApi(request, apiKey, {
      operationId: `live-${run}-${name}`,
      stage: "submission_uncertain",
      amountMicros: 300_000,
      currency: "USD",
    });
  const first = await park("first");
  const second = await park("second");

  await login("operator@demo.local");
  await page.goto(`/queue?q=live-${run}&sort=newest`);
  await expect(page.getByTestId("queue-row")).toHaveCount(2);
  await expect(page.locator("table[data-keys=on]")).toBeVisible();
  // Newest first: the second case on top; move the cursor to the first case (row 2).
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await expect(page.locator(`[data-case-id="${first}"]`)).toHaveAttribute("aria-selected", "true");
  // Marks this document: a reload would lose it.
  await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));

  const third = await park("third");
  const arrived = page.locator(`[data-case-id="${third}"]`);
  await expect(arrived).toBeVisible({ timeout: 20_000 });
  await expect(arrived).toHaveAttribute("data-new", "");
  await expect(page.getByTestId("queue-row")).toHaveCount(3);
  await expect(page.getByTestId("queue-row").first()).toHaveAttribute("data-case-id", third);
  await expect(page.locator(`[data-case-id="${first}"]`)).toHaveAttribute("aria-selected", "true");
  await expect(page.locator(`[data-case-id="${second}"]`)).toHaveAttribute("aria-selected", "false");
  expect(await page.evaluate(() => (window as { stillTheSamePage?: boolean }).stillTheSamePage)).toBe(true);
  await expect(page.getByTestId("queue-count")).toHaveText("Showing 3 of 3 cases");

  // Opened from this view, a case leads to its neighbours in the view and back to the view itself.
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/cases/${first}`));
  const nav = page.getByRole("navigation", { name: "Queue" });
  await expect(nav).toContainText("Last in this view");
  await nav.getByRole("link", { name: "‹ Previous case" }).click();
  await expect(page).toHaveURL(new RegExp(`/cases/${second}`));
  await nav.getByRole("link", { name: "‹ Previous case" }).click();
  await expect(page).toHaveURL(new RegExp(`/cases/${third}`));
  await expect(nav).toContainText("First in this view");
  await expect(nav.getByRole("link", { name: "← Back to the queue" })).toHaveAttribute(
    "href",
    `/queue?q=live-${run}&sort=newest`,
  );
});
