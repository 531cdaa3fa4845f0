import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Finance caps what replacements may authorise per currency; the Finance page shows each limit with
// its use, and an authorisation past it is refused with the figures. The journey uses a currency of
// its own (NZD; AUD for the sends journey) and clears its limit at the end, so no other journey meets it.

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
  const section = page.getByRole("region", { name: "Spend limits" });
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

/** A permit asked for over HTTP, as a producer does before a paid create; returns the response. */
function askPermit(page: Page, apiKey: string, operationId: string) {
  return page.request.post(`/api/v1/operations/${operationId}/attempts`, {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      attemptId: `${operationId}-a1`,
      requestFingerprint: `sha256:${"cd".repeat(32)}`,
      provider: "replicate",
      model: "e2e-model",
      hold: { holdId: `hold-${operationId}`, amountMicros: 30_000_000, currency: "AUD" },
      sendDeadline: new Date(Date.now() + 10 * 60_000).toISOString(),
    },
  });
}

test("finance limits a producer's sends: the Finance page shows the hour's use, and a permit past it is refused", async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const run = Date.now().toString(36);
  const shop = `sends-${run}`;
  const apiKey = createApiKey(shop);
  await login("finance@demo.local");
  await page.goto("/finance#spend-limits");
  const section = page.getByRole("region", { name: "Spend limits" });
  const form = section.getByRole("form", { name: "Set a spend limit" });
  await form.getByLabel("Applies to").selectOption("sends");
  await form.getByLabel("Currency").fill("AUD");
  await form.getByLabel("Producer").fill(shop);
  await form.getByLabel("Most per hour").fill("50.00");
  await form.getByRole("button", { name: "Save limit" }).click();
  await expect(form.getByRole("status")).toHaveText(
    `Saved the AUD limit for sends of ${shop}: A$50.00 per hour, no limit per day.`,
  );

  // The first send fits; the second would take the hour to A$60.00 and is refused with the figures.
  expect((await askPermit(page, apiKey, `${shop}-1`)).status()).toBe(201);
  const refused = await askPermit(page, apiKey, `${shop}-2`);
  expect(refused.status()).toBe(409);
  expect((await refused.json()).error).toMatchObject({
    code: "spend_limit_reached",
    details: { window: "hour", limitMicros: 50_000_000, usedMicros: 30_000_000, requestedMicros: 30_000_000 },
  });
  await page.reload();
  const limit = section.getByTestId("spend-limits").getByRole("row").filter({ hasText: shop });
  await expect(limit).toContainText("Sends");
  await expect(limit).toContainText("A$30.00 of A$50.00");

  await limit.getByRole("button", { name: "Clear" }).click();
  await limit.getByRole("button", { name: new RegExp(`Clear the AUD limit for sends of ${shop}`) }).click();
  await expect(limit).toHaveCount(0);
});
