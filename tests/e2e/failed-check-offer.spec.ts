import { offeredDecisions, reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, tickUntil } from "./fixtures/producer";

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
  const operationId = `e2e-unknown-${run}`;
  const jobId = `pred-unknown-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "polling",
      provider: "replicate",
      model: "e2e-model",
      providerJobId: jobId,
      requestFingerprint: `sha256:${"ef".repeat(32)}`,
      evidence: { summary: "status checks failed with 502", observedAt: new Date().toISOString() },
      hold: { holdId: `hold-unknown-${run}`, amountMicros: 2_000_000, currency: "DKK" },
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  const { caseId } = await parked.json();

  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  // Before any attempt, checking the job comes first, and nothing is held back.
  expect(await offeredDecisions(page)).toEqual(["Resume status checks", "Escalate"]);
  await expect(page.getByTestId("try-again-anyway")).toHaveCount(0);
  const approve = await reviewDecision(page, "Resume status checks", "The provider's status page is green again.");
  await approve.getByRole("button", { name: "Approve status checks" }).click();
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on the worker");
  const ran = await tickUntil(request, workerToken, (results) =>
    results.some((r) => r.caseId === caseId && r.outcome === "parked"),
  );
  expect(ran).toBe(true);

  await page.reload();
  const failure = `Status check failed: the provider does not know job ${jobId} (HTTP 404)`;
  await expect(page.getByTestId("last-attempt")).toContainText(failure);
  // The step that can help is offered; the repeat is not, until asked for, and says why with the failure quoted.
  expect(await offeredDecisions(page)).toEqual(["Escalate"]);
  const held = page.getByTestId("try-again-anyway");
  await expect(held).toContainText("the provider does not know this job; checking again cannot help");
  await expect(held.locator("blockquote")).toHaveText(`${failure}.`);
  await held.getByRole("button", { name: "Try again anyway…" }).click();
  expect(await offeredDecisions(page)).toEqual(["Escalate", "Resume status checks"]);
  await expect(page.getByRole("radio", { name: "Resume status checks", exact: true })).toBeChecked();
  // Asking anyway still goes through the ordinary confirmation.
  await page.getByRole("region", { name: "Decisions" }).getByLabel("Evidence").fill("The provider fixed a replica.");
  await page.getByRole("region", { name: "Decisions" }).getByRole("button", { name: "Review decision…" }).click();
  await expect(page.getByTestId("decision-confirm")).toContainText("Queues status checks of");
});
