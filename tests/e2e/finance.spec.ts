import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Finance's own cases are parked through the producer API with a key minted by the same command
// an operator would run. "XTS" is ISO 4217's code for testing, so nothing else
// in this run shares these totals.
const CURRENCY = "XTS";
const run = Date.now().toString(36);

/** A case of this run, in the test currency, parked by a producer through the API. */
function parkCase(
  request: APIRequestContext,
  apiKey: string,
  name: string,
  stage: "polling" | "submission_uncertain" | "generation_failed",
  amountMicros: number,
): Promise<string> {
  return parkThroughApi(request, apiKey, {
    operationId: `e2e-${run}-${name}`,
    stage,
    amountMicros,
    currency: CURRENCY,
    holdId: `hold-${name}-${run}`,
  });
}

test.describe("finance", () => {
  test("finance settles part of one hold and releases another; the totals follow", async ({ page, login, request }) => {
    // Minting the key starts a Node process and parks three cases before the browser work begins.
    test.setTimeout(90_000);
    const apiKey = createApiKey(`e2e-finance-${run}-holds`);
    await parkCase(request, apiKey, "partial", "polling", 1_000_000);
    await parkCase(request, apiKey, "release", "generation_failed", 2_500_000);
    await parkCase(request, apiKey, "uncertain", "submission_uncertain", 250_000);

    await login("finance@demo.local");
    await page.setViewportSize({ width: 1366, height: 768 });
    const response = await page.goto("/finance?limit=200");
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Finance" })).toBeVisible();
    const totals = page.getByTestId(`totals-${CURRENCY}`);
    await expect(totals.getByTestId("held")).toContainText("XTS 3.75");
    await expect(totals.getByTestId("held")).toContainText("3 holds");
    const exposure = page.getByTestId("exposure");
    await expect(exposure).toContainText("Exposure");
    await expect(exposure).toContainText("XTS 0.25");

    // Settle 0.40 of the 1.00 hold: the form shows what is released before anything is booked.
    const partial = page.locator(`[data-hold-id="hold-partial-${run}"]`);
    await partial.getByRole("button", { name: "Settle…" }).click();
    await page.getByLabel("Charge in XTS").fill("0.40");
    await expect(page.getByTestId("settle-preview")).toContainText("releases XTS 0.60");
    await page.getByLabel("Accounting note").fill("invoice 2026-11 line 3");
    await page.getByLabel("Evidence").fill("provider usage export: 8 s billed");
    await page.getByRole("button", { name: "Review settlement" }).click();
    await expect(page.getByRole("heading", { name: /Confirm settlement/ })).toBeFocused();
    await expect(page.getByTestId("settle-preview")).toContainText("Charges XTS 0.40");
    await page.getByRole("button", { name: "Confirm settle" }).click();
    await expect(page.getByTestId("finance-announcement")).toContainText("XTS 0.40 charged, XTS 0.60 released");
    await expect(totals.getByTestId("held")).toContainText("XTS 2.75");
    await expect(totals.getByTestId("settled")).toContainText("XTS 0.40");
    await expect(totals.getByTestId("released")).toContainText("XTS 0.60");
    await expect(partial).toHaveCount(0);

    // Release the 2.50 hold in full.
    const released = page.locator(`[data-hold-id="hold-release-${run}"]`);
    await released.getByRole("button", { name: "Release…" }).click();
    await page.getByLabel("Accounting note").fill("no charge on the November invoice");
    await page.getByLabel("Evidence").fill("usage export shows 0 s for this job");
    await page.getByRole("button", { name: "Review release" }).click();
    await page.getByRole("button", { name: "Confirm release" }).click();
    await expect(page.getByTestId("finance-announcement")).toContainText("XTS 2.50 back to budget");
    await expect(totals.getByTestId("held")).toContainText("XTS 0.25");
    await expect(totals.getByTestId("released")).toContainText("XTS 3.10");
    await expect(released).toHaveCount(0);
    await page.goto("/finance?status=settled");
    await page.goto("/finance?limit=200");

    // The ledger export has the entries as integer micro-units and plain amounts, without symbols.
    const today = new Date().toISOString().slice(0, 10);
    const csv = await page.request.get(`/api/v1/finance/export?from=${today}&to=${today}&kind=ledger`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()["content-disposition"]).toBe(`attachment; filename="ledger-${today}-to-${today}.csv"`);
    const body = await csv.text();
    expect(body).toContain(`e2e-${run}-partial,`);
    expect(body).toContain(`settle,false,${CURRENCY},400000,0.40,`);
    expect(body).toContain(`release,false,${CURRENCY},2500000,2.50,`);
  });

  test("finance finds a hold by its operation, and a decision is confirmed and listed as recently decided", async ({
    page,
    login,
    request,
  }) => {
    test.setTimeout(90_000);
    const apiKey = createApiKey(`e2e-finance-${run}-desk`);
    await parkCase(request, apiKey, "desk-found", "polling", 1_200_000);
    await parkCase(request, apiKey, "desk-other", "polling", 300_000);

    await login("finance@demo.local");
    await page.goto("/finance");
    const search = page.getByRole("search").getByLabel("Operation ID");
    await search.fill(`e2e-${run}-desk-f`);
    await page.getByRole("button", { name: "Find holds" }).click();
    await expect(page).toHaveURL(new RegExp(`operation=e2e-${run}-desk-f`));
    const found = page.locator(`[data-hold-id="hold-desk-found-${run}"]`);
    await expect(found).toBeVisible();
    await expect(page.getByTestId("hold-row")).toHaveCount(1);

    // The case is still open (polling): the confirmation says a charge may still arrive.
    await found.getByRole("button", { name: "Settle…" }).click();
    await page.getByLabel("Charge in XTS").fill("1.20");
    await page.getByLabel("Accounting note").fill("invoice 2026-12 line 9");
    await page.getByLabel("Evidence").fill("provider usage export: 12 s billed");
    await page.getByRole("button", { name: "Review settlement" }).click();
    await expect(page.getByTestId("open-case-warning")).toContainText("a charge may still arrive");
    await page.getByRole("button", { name: "Confirm settle" }).click();

    const status = page.getByRole("status").filter({ has: page.getByTestId("finance-announcement") });
    await expect(status).toContainText(`e2e-${run}-desk-found (hold hold-desk-found-${run}) settled: XTS 1.20 charged`);
    const decided = page.getByTestId("recent-decision").filter({ hasText: `e2e-${run}-desk-found` });
    await expect(decided).toContainText("Settled");
    await expect(decided).toContainText("XTS 1.20");
    await expect(decided).toContainText("finance@demo.local");
    await expect(decided.locator("time")).toHaveCount(1);
    await expect(page.getByRole("columnheader", { name: /Decided at/ })).toBeVisible();
  });

  test("a reviewer's replacement request is authorised by finance, with evidence and a confirmation", async ({
    page,
    login,
    request,
  }) => {
    test.setTimeout(90_000);
    const caseId = await parkCase(
      request,
      createApiKey(`e2e-finance-${run}-replacement`),
      "failed",
      "generation_failed",
      750_000,
    );
    await login("reviewer@demo.local");
    await page.goto("/profile");
    const asked = await page.request.post(`/api/v1/cases/${caseId}/replacement-requests`, {
      data: { evidence: "provider reports a content-filter failure; no charge" },
      headers: { origin: new URL(page.url()).origin },
    });
    expect(asked.ok(), await asked.text()).toBe(true);

    await login("finance@demo.local");
    await page.goto("/finance?limit=200");
    const item = page.getByTestId("replacement-request").filter({ hasText: `e2e-${run}-failed` });
    await expect(item).toContainText("reviewer@demo.local");
    await expect(item).toContainText("New hold XTS 0.75");
    await item.getByRole("button", { name: "Authorise…" }).click();
    await expect(item.getByText("Evidence is required.")).toBeVisible();
    await item.getByLabel("Evidence").fill("budget approved in ticket FIN-12");
    await item.getByRole("button", { name: "Authorise…" }).click();
    await item.getByRole("button", { name: "Authorise replacement" }).click();
    await expect(page.getByTestId("finance-announcement")).toContainText("a new hold of XTS 0.75 is reserved");
    await expect(item).toHaveCount(0);
  });

  test("an operator gets the 403 page on /finance and no Finance link", async ({ page, login }) => {
    await login("operator@demo.local");
    const response = await page.goto("/finance?limit=200");
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: /403/ })).toBeVisible();
    await page.goto("/profile");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Finance" })).toHaveCount(0);
    const csv = await page.request.get("/api/v1/finance/export?from=2026-01-01&to=2026-01-31&kind=holds");
    expect(csv.status()).toBe(403);
  });
});
