import { offeredDecisions, reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// The case is parked by this journey, submitted just now, so "no job exists" still waits for the
// provider's settling period however long the suite has been running (a seeded case ages with it).
const run = Date.now().toString(36);
const operationId = `e2e-reconcile-${run}`;
let apiKey = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-reconcile-${run}`);
});

test("a reviewer reconciles an uncertain submission, then approves resume_poll", async ({ page, login, request }) => {
  await parkThroughApi(request, apiKey, {
    operationId,
    stage: "submission_uncertain",
    amountMicros: 1_500_000,
    currency: "USD",
    summary: "create timed out after the provider accepted the connection",
    submittedAt: new Date().toISOString(),
  });
  await login("reviewer@demo.local");
  await page.goto(`/queue?q=${operationId}`);
  await page.getByRole("link", { name: operationId }).click();
  await expect(page.getByText("Uncertain submission").first()).toBeVisible();
  // Before reconciliation, no recovery can be approved.
  expect(await offeredDecisions(page)).not.toContain("Resume status checks");
  // Submitted minutes ago: a late job may still appear, so "no job exists" is said with its moment,
  // not offered (the server would refuse it until then).
  expect(await offeredDecisions(page)).not.toContain("Record that no job exists");
  await expect(page.getByTestId("no-job-not-yet")).toContainText("Recording that no job exists is allowed from");
  await expect(page.getByTestId("provider-job-page")).toHaveCount(0);

  const attach = await reviewDecision(
    page,
    "Attach the provider job you found",
    "Found in the provider's job list: same model, prompt hash and submit minute.",
    { providerJobId: "pred-found-in-provider-list" },
  );
  await expect(attach).toContainText("Attaches provider job pred-found-in-provider-list");
  await attach.getByRole("button", { name: "Attach job" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Recorded: Attach the provider job" })).toBeFocused();

  // The job is known now: its ID with a copy button, and no link, because the demo's provider is the
  // local simulator (Replicate's own page would show someone else's prediction, or none).
  await expect(page.getByRole("button", { name: "Copy provider job ID" })).toBeVisible();
  await expect(page.getByTestId("provider-job-page")).toHaveText("(simulated job: no provider page)");
  await expect(page.locator('a[href^="https://replicate.com"]')).toHaveCount(0);

  // A single approval is confirmed too, with what it does and the money on hold (the case holds $1.50).
  await expect.poll(() => offeredDecisions(page)).toContain("Resume status checks");
  const approve = await reviewDecision(page, "Resume status checks", "Job confirmed on the provider; resume checks.");
  await expect(approve).toContainText("Queues status checks of pred-found-in-provider-list");
  await expect(approve).toContainText("never buys a new video");
  await expect(approve).toContainText("Money on hold stays held until the outcome is known: $1.50");
  // Back leaves everything as it was; nothing was sent.
  await approve.getByRole("button", { name: "Back" }).click();
  await expect(page.getByTestId("decision-confirm")).toHaveCount(0);
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on a reviewer");
  await page.getByRole("region", { name: "Decisions" }).getByRole("button", { name: "Review decision…" }).click();
  await page.getByTestId("decision-confirm").getByRole("button", { name: "Approve status checks" }).click();

  await expect(page.getByText("Queued", { exact: true }).first()).toBeVisible();
  // What it waits on is said at once: the approval queued it for the worker.
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on the worker");
  const timeline = page.getByTestId("timeline");
  await expect(timeline).toContainText("approved");
  await expect(timeline).toContainText("reconciled_job_found");
  await expect(timeline).toContainText("pred-found-in-provider-list");
  // One readable sentence per event; the stored name and the raw evidence are folded away.
  await expect(timeline.getByText("Provider job pred-found-in-provider-list attached")).toBeVisible();
  await expect(timeline.getByText("Approved: resume status checks")).toBeVisible();
});
