import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Decision 084: a shop reported another operation's job as its own. Finance moves the job to the
// send that made it; the wrong operation's open case goes back to an uncertain submission, and the
// send that made it takes the job. "XMV" is this spec's own test currency.
const CURRENCY = "XMV";
const run = Date.now().toString(36);

test("finance moves a job a shop named as its own to the send that made it", async ({ page, login, request }) => {
  test.setTimeout(120_000);
  const apiKey = createApiKey(`e2e-move-${run}`);
  const job = `misnamed-${run}`;
  const wrongCase = await parkThroughApi(request, apiKey, {
    operationId: `e2e-move-wrong-${run}`,
    stage: "polling",
    amountMicros: 500_000,
    currency: CURRENCY,
    providerJob: { id: job, model: "e2e-model" },
  });
  const maker = `e2e-move-maker-${run}`;
  const makerCase = await parkThroughApi(request, apiKey, {
    operationId: maker,
    stage: "submission_uncertain",
    amountMicros: 500_000,
    currency: CURRENCY,
    submittedAt: new Date(Date.now() - 30 * 60_000).toISOString(),
  });

  await login("finance@demo.local");
  await page.goto("/finance/unexplained");
  const form = page.getByRole("region", { name: "Move a job to the send that made it" });
  await form.getByRole("button", { name: "Review…" }).click();
  await expect(form.getByLabel("Provider job")).toBeFocused();
  await form.getByLabel("Provider", { exact: true }).selectOption("replicate");
  await form.getByLabel("Provider job").fill(job);
  await form.getByLabel("Case of the send that made it (address or ID)").fill(`http://localhost/cases/${makerCase}`);
  await form.getByLabel("How you know").fill("the shop's log shows this job came from the other order");
  await form.getByRole("button", { name: "Review…" }).click();
  await expect(form.getByRole("heading", { name: `Move replicate job ${job} to case ${makerCase}` })).toBeFocused();
  await form.getByRole("button", { name: "Move job" }).click();
  await expect(page.getByTestId("finance-announcement")).toContainText(
    `replicate job ${job} is moved to case ${makerCase}`,
  );

  // The wrong operation's case asks again which job its send made; the maker's case has the job.
  await page.goto(`/cases/${wrongCase}`);
  await expect(page.getByText("Uncertain submission").first()).toBeVisible();
  await expect(page.getByTestId("timeline")).toContainText(job);
  await page.goto(`/cases/${makerCase}`);
  await expect(page.getByRole("button", { name: "Copy provider job ID" })).toBeVisible();
  await expect(page.getByText(job).first()).toBeVisible();
});
