import type { APIRequestContext, Page } from "@playwright/test";
import { offeredDecisions, reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, parkThroughApi, tickUntil } from "./fixtures/producer";

// Decision 061: after a status check the provider answered "not found", checking again cannot help:
// the steps that can come first, and the repeat waits behind "try again anyway" with the failure quoted.
const run = Date.now().toString(36);
let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-failed-check-${run}`);
  workerToken = createWorkerToken(`e2e-failed-check-worker-${run}`);
});

test("a check the provider answered with 404 puts the repeat behind “try again anyway”", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const { caseId, jobId } = await parkedAfter404(request, "unknown");

  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  // Before any attempt, checking the job comes first, and nothing is held back.
  expect(await offeredDecisions(page)).toEqual(["Resume status checks", "Escalate"]);
  await expect(page.getByTestId("try-again-anyway")).toHaveCount(0);
  await checkOnce(page, request, caseId, "The provider's status page is green again.");
  const failure = `Status check failed: the provider does not know job ${jobId} (HTTP 404)`;
  await expect(page.getByTestId("last-attempt")).toContainText(failure);
  // The steps that can help are offered; the repeat is not, until asked for, and says why with the failure quoted.
  // "No job exists" waits for the provider's settling period, and the page says until when (decision 068).
  expect(await offeredDecisions(page)).toEqual(["Attach a different job…", "Escalate"]);
  await expect(page.getByTestId("no-job-not-yet")).toContainText("Recording that no job exists is allowed from");
  const held = page.getByTestId("try-again-anyway");
  await expect(held).toContainText("the provider does not know this job; checking again cannot help");
  await expect(held.locator("blockquote")).toHaveText(`${failure}.`);
  await held.getByRole("button", { name: "Try again anyway…" }).click();
  expect(await offeredDecisions(page)).toEqual(["Attach a different job…", "Escalate", "Resume status checks"]);
  await expect(page.getByRole("radio", { name: "Resume status checks", exact: true })).toBeChecked();
  // Asking anyway still goes through the ordinary confirmation.
  await page.getByRole("region", { name: "Decisions" }).getByLabel("Evidence").fill("The provider fixed a replica.");
  await page.getByRole("region", { name: "Decisions" }).getByRole("button", { name: "Review decision…" }).click();
  await expect(page.getByTestId("decision-confirm")).toContainText("Queues status checks of");
});

/** Approves one status check, lets the worker run it (the provider answers 404) and reloads the case. */
async function checkOnce(page: Page, request: APIRequestContext, caseId: string, evidence: string) {
  const approve = await reviewDecision(page, "Resume status checks", evidence);
  await approve.getByRole("button", { name: "Approve status checks" }).click();
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on the worker");
  const ran = await tickUntil(request, workerToken, (results) =>
    results.some((r) => r.caseId === caseId && r.outcome === "parked"),
  );
  expect(ran).toBe(true);
  await page.reload();
}

/** A job to check, parked now, which the provider does not know: its status check answers 404. */
async function parkedAfter404(request: APIRequestContext, name: string) {
  const operationId = `e2e-${name}-${run}`;
  const jobId = `pred-${name}-${run}`;
  const caseId = await parkThroughApi(request, apiKey, {
    operationId,
    stage: "polling",
    amountMicros: 3_000_000,
    currency: "ISK",
    holdId: `hold-${name}-${run}`,
    summary: "status checks failed with 502",
    providerJob: { id: jobId, model: "e2e-model" },
    submittedAt: new Date().toISOString(),
  });
  return { caseId, jobId };
}

test("after a 404 the reviewer attaches a different job and the case checks that job next", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const { caseId, jobId } = await parkedAfter404(request, "attach-other");
  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  await expect(page.locator("p[data-keys]")).toHaveAttribute("data-keys", "on");
  await checkOnce(page, request, caseId, "Check it once.");
  await expect(page.locator("p[data-keys]")).toHaveAttribute("data-keys", "on");
  await expect(page.getByTestId("last-attempt")).toContainText(`the provider does not know job ${jobId}`);
  expect(await offeredDecisions(page)).toEqual(["Attach a different job…", "Escalate"]);
  const otherJob = `pred-other-${run}`;
  const attach = await reviewDecision(page, "Attach a different job…", "The shop's log names another job.", {
    providerJobId: otherJob,
  });
  await expect(attach).toContainText(`Attaches provider job ${otherJob} in place of ${jobId}`);
  await attach.getByRole("button", { name: "Attach job" }).click();

  // Back to a job to check, now of the new job: its check comes first and nothing is held back.
  await expect(page.getByTestId("try-again-anyway")).toHaveCount(0);
  await expect.poll(() => offeredDecisions(page)).toEqual(["Resume status checks", "Escalate"]);
  await expect(page.getByText(otherJob).first()).toBeVisible();
  await expect(page.getByTestId("no-job-not-yet")).toHaveCount(0);
});
