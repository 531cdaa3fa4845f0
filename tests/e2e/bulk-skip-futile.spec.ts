import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, parkThroughApi, tickUntil } from "./fixtures/producer";

// Decision 061: a bulk approval's dry run lists a case whose last status check found the job
// unknown as skipped, with the reason, instead of checking it again.
const run = Date.now().toString(36);
let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-bulk-futile-${run}`);
  workerToken = createWorkerToken(`e2e-bulk-futile-worker-${run}`);
});

test("the dry run of a bulk approval skips the repeat that cannot help, saying why", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const prefix = `e2e-futile-${run}`;
  const unknown = await parkThroughApi(request, apiKey, {
    operationId: `${prefix}-unknown`,
    stage: "polling",
    amountMicros: 1_000_000,
    currency: "NOK",
  });
  await parkThroughApi(request, apiKey, {
    operationId: `${prefix}-fresh`,
    stage: "polling",
    amountMicros: 1_000_000,
    currency: "NOK",
  });

  await login("reviewer@demo.local");
  await page.goto(`/cases/${unknown}`);
  const approve = await reviewDecision(page, "Resume status checks", "The provider is answering again.");
  await approve.getByRole("button", { name: "Approve status checks" }).click();
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on the worker");
  const ran = await tickUntil(request, workerToken, (results) =>
    results.some((r) => r.caseId === unknown && r.outcome === "parked"),
  );
  expect(ran).toBe(true);

  await page.goto(`/queue?q=${prefix}&state=parked`);
  const rows = page.getByTestId("queue-row");
  await expect(rows).toHaveCount(2);
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  // The bulk box shows once a case is picked (decision 063); it then offers the whole view too.
  await page.getByTestId("queue-row").first().getByRole("checkbox").check();
  await bulk.getByLabel("every case matching this view").check();
  await bulk.getByLabel("Action", { exact: true }).selectOption("approve");
  await bulk.getByLabel("Evidence for every case").fill("Provider incident over; check the jobs again.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: "Approve 1 case?" })).toBeVisible();
  const skipped = bulk.getByTestId("bulk-skipped");
  await expect(skipped).toContainText(`${prefix}-unknown`);
  await expect(skipped).toContainText("the provider does not know this job; checking again cannot help");
});
