import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Finance caps what replacements may authorise per currency; the Finance page shows each limit with
// its use, and an authorisation past it is refused with the figures. The journey uses a currency of
// its own (NZD) and clears its limit at the end, so no other journey meets it.

/** A proven failure parked by a producer, with a reviewer's replacement request waiting for finance. */
async function pendingReplacement(page: Page, apiKey: string, operationId: string): Promise<void> {
  const caseId = await parkThroughApi(page.request, apiKey, {
    operationId,
    stage: "generation_failed",
    amountMicros: 30_000_000,
    currency: "NZD",
  });
  const asked = await page.request.post(`/api/v1/cases/${caseId}/replacement-requests`, {
    data: { evidence: "The provider confirmed the failure." },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(asked.status(), await asked.text()).toBe(200);
}

async function authorise(page: Page, operationId: string) {
  const item = page.getByTestId("replacement-request").filter({ hasText: operationId });
  await item.getByLabel("Evidence").fill("Budget approved in ticket FIN-12.");
  await item.getByRole("button", { name: "Authorise…" }).click();
  await item.getByRole("button", { name: "Authorise replacement" }).click();
  return item;
}

test("finance sets a spend limit, sees its use, and an authorisation past it is refused with the figures", async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const run = Date.now().toString(36);
  const [first, second] = [`limit-${run}-1`, `limit-${run}-2`];
  const apiKey = createApiKey(`limits-${run}`);
  await login("reviewer@demo.local");
  await page.goto("/queue");
  await pendingReplacement(page, apiKey, first);
  await pendingReplacement(page, apiKey, second);

  // A reviewer may not set limits, through the API either.
  const forbidden = await page.request.put("/api/v1/finance/spend-limits", {
    data: { currency: "NZD", perHourMicros: 1, perDayMicros: null },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(forbidden.status()).toBe(403);

  await login("finance@demo.local");
  await page.goto("/finance#spend-limits");
  const section = page.getByRole("region", { name: "Spend limits on replacements" });
  const form = section.getByRole("form", { name: "Set a spend limit" });
  await form.getByLabel("Currency").fill("NZD");
  await form.getByLabel("Most per hour").fill("50.0001");
  await form.getByRole("button", { name: "Save limit" }).click();
  // An amount finer than the currency's cents is refused at its field, not rounded.
  await expect(form.getByText(/at most 2 decimals/)).toBeVisible();
  await form.getByLabel("Most per hour").fill("50.00");
  await form.getByRole("button", { name: "Save limit" }).click();
  await expect(form.getByRole("status")).toHaveText(
    "Saved the NZD limit for every producer: NZ$50.00 per hour, no limit per day.",
  );
  const limit = section.getByTestId("spend-limits").getByRole("row").filter({ hasText: "NZD" });
  await expect(limit).toContainText("NZ$0.00 of NZ$50.00");

  // The first replacement fits; its use is shown against the limit.
  await expect(await authorise(page, first)).toHaveCount(0);
  await page.reload();
  await expect(limit).toContainText("NZ$30.00 of NZ$50.00");

  // The second would take the hour to NZ$60.00: the page says so before anyone presses the button,
  // and the authorisation is refused, with the limit, the use and the request.
  const warning = page
    .getByTestId("replacement-request")
    .filter({ hasText: second })
    .getByTestId("spend-limit-warning");
  await expect(warning).toContainText("Authorising now would be refused");
  await expect(warning).toContainText("NZ$30.00 is already authorised in the last hour");
  const refused = await authorise(page, second);
  const alert = refused.getByRole("alert");
  await expect(alert).toContainText("hourly spend limit for NZD replacements (every producer) is NZ$50.00");
  await expect(alert).toContainText("NZ$30.00 is already authorised in the last hour");
  await expect(alert).toContainText("this replacement asks NZ$30.00");
  await refused.getByRole("button", { name: "Close" }).click();
  await expect(page.getByTestId("replacement-request").filter({ hasText: second })).toBeVisible();

  // Cleared, the limit is gone from the page (and from every other journey's way).
  await limit.getByRole("button", { name: "Clear" }).click();
  await limit.getByRole("button", { name: /Clear the NZD limit/ }).click();
  await expect(section.getByTestId("spend-limits")).toHaveCount(0);
  await expect(section).toContainText("No spend limits");
});
