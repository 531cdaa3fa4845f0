import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";
import { importUsageCsv } from "./fixtures/usage";

// Decision 074: a provider charge for a job no operation owns, which an uncertain submission sent.
// Finance attaches it to that operation from the list; the case takes the job through the ownership
// rule. "XUI" is this spec's own test currency.
const CURRENCY = "XUI";
const run = Date.now().toString(36);

test("finance attaches a charge no operation owns to the uncertain submission that sent it", async ({
  page,
  login,
  request,
}) => {
  // Minting the key starts a Node process and parks a case before the browser work begins.
  test.setTimeout(120_000);
  const apiKey = createApiKey(`e2e-unexplained-${run}`);
  const operationId = `e2e-unexplained-${run}`;
  const submittedAt = new Date(Date.now() - 60 * 60_000).toISOString();
  await parkThroughApi(request, apiKey, {
    operationId,
    stage: "submission_uncertain",
    amountMicros: 1_000_000,
    currency: CURRENCY,
    submittedAt,
  });
  const job = `retry-${run}`;

  await login("finance@demo.local");
  await page.goto("/finance/usage");
  await importUsageCsv(
    page,
    "replicate",
    `provider_job_id,amount,currency,time,model\n${job},0.75,${CURRENCY},${submittedAt},e2e-model\n`,
  );
  await expect(page.getByRole("status").filter({ hasText: "Read 1 line" })).toContainText("1 unexplained");

  await page.goto("/finance/unexplained?provider=replicate");
  const row = page.locator(`tr[data-charge="${job}"]`);
  await expect(row.getByRole("link", { name: operationId })).toBeVisible();
  await row.getByRole("button", { name: "Attach to an operation…" }).click();
  await row.getByRole("radio", { name: new RegExp(operationId) }).check();
  await row.getByLabel("Evidence").fill("the client's log shows its retry created this job");
  await row.getByRole("button", { name: "Review…" }).click();
  await row.getByRole("button", { name: "Attach job" }).click();
  await expect(page.getByTestId("finance-announcement")).toContainText(
    `replicate job ${job} is attached to operation ${operationId}`,
  );
  await expect(row).toHaveCount(0);
});

// Decision 080: a line whose model the product does not know matches no send, so nothing is offered;
// the shop told finance which operation made it, and finance names its case by the case's address.
test("finance attaches a charge the list offers no send for to a case it names", async ({ page, login, request }) => {
  test.setTimeout(120_000);
  const apiKey = createApiKey(`e2e-unexplained-named-${run}`);
  const operationId = `e2e-unexplained-named-${run}`;
  const submittedAt = new Date(Date.now() - 30 * 60_000).toISOString();
  const caseId = await parkThroughApi(request, apiKey, {
    operationId,
    stage: "submission_uncertain",
    amountMicros: 1_000_000,
    currency: CURRENCY,
    submittedAt,
  });
  const job = `named-${run}`;

  await login("finance@demo.local");
  await page.goto("/finance/usage");
  await importUsageCsv(
    page,
    "replicate",
    `provider_job_id,amount,currency,time,model\n${job},0.40,${CURRENCY},${submittedAt},e2e-unlisted-${run}\n`,
  );
  await expect(page.getByRole("status").filter({ hasText: "Read 1 line" })).toContainText("1 unexplained");

  await page.goto("/finance/unexplained?provider=replicate");
  const row = page.locator(`tr[data-charge="${job}"]`);
  await expect(row).toContainText("none found");
  await row.getByRole("button", { name: "Attach to an operation…" }).click();
  await expect(row.getByRole("radio", { name: "Another case" })).toBeChecked();
  await row.getByRole("button", { name: "Review…" }).click();
  await expect(row.getByLabel("Case address or ID")).toBeFocused();
  await row.getByLabel("Case address or ID").fill(`http://localhost/cases/${caseId}`);
  await row.getByLabel("Evidence").fill("the shop's log names this job for the operation");
  await row.getByRole("button", { name: "Review…" }).click();
  await row.getByRole("button", { name: "Attach job" }).click();
  await expect(page.getByTestId("finance-announcement")).toContainText(
    `replicate job ${job} is attached to case ${caseId}`,
  );
  await expect(row).toHaveCount(0);
});
