import type { APIRequestContext } from "@playwright/test";
import { offeredDecisions, reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, parkThroughApi, seedFinishedJob, tickUntil } from "./fixtures/producer";

// Rule 13 in the console: a delivery whose outputs the provider deleted before the copy offers the
// two decisions that can still move it on, and the accepted loss reaches finance as a closed case
// whose hold still needs a decision. Everything runs for real: the simulator deletes the outputs,
// the worker tick finds them gone.
const CURRENCY = "XTS";
const run = Date.now().toString(36);

// Minted once for the file by the operator's own command (a Node process each), before any browser work.
let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-gone-${run}`);
  workerToken = createWorkerToken(`e2e-gone-worker-${run}`);
});

/** Runs worker ticks until this case's action has run (earlier journeys leave approved actions too). */
async function tickUntilRun(request: APIRequestContext, caseId: string): Promise<string | undefined> {
  let outcome: string | undefined;
  await tickUntil(request, workerToken, (results) => {
    outcome = results.find((r) => r.caseId === caseId)?.outcome;
    return outcome !== undefined;
  });
  return outcome;
}

test("outputs deleted before the copy: accept the loss, and finance sees the hold that needs a decision", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const job = await seedFinishedJob(request, { outputTtlMs: 0 });
  const operationId = `e2e-gone-${run}`;
  const holdId = `hold-gone-${run}`;
  const caseId = await parkThroughApi(request, apiKey, {
    operationId,
    stage: "delivery",
    providerJob: job,
    summary: "download failed twice",
    holdId,
    amountMicros: 3_000_000,
    currency: CURRENCY,
  });

  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  // A single approval says what it does and the money held before it is sent.
  const approve = await reviewDecision(
    page,
    "Retry copying the video",
    "Copy failed on a network reset; retry the download.",
  );
  await expect(approve).toContainText("Queues copying the finished video");
  await expect(approve).toContainText("3.00");
  await approve.getByRole("button", { name: "Approve copying" }).click();
  // The choice goes away as soon as the approval lands (a ready case offers no second approval).
  const stateOf = async () => (await (await page.request.get(`/api/v1/cases/${caseId}`)).json()).state;
  await expect.poll(stateOf).toBe("ready");
  await page.reload();
  await expect(page.getByTestId("waiting-on").first()).toContainText("approved: queued for the worker");

  expect(await tickUntilRun(request, caseId)).toBe("parked");

  // The copy cannot succeed any more: only the two decisions that still move the case on are offered.
  await page.reload();
  // A failed recovery does not look like a new case: the banner says what the last attempt found.
  await expect(page.getByTestId("last-attempt")).toContainText("failed");
  await expect(page.getByTestId("last-attempt")).toContainText("Copying the video failed");
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on a reviewer");
  // Accepting what happened comes before asking for a new paid generation.
  const offered = await offeredDecisions(page);
  expect(offered[0]).toBe("Accept that the outputs are lost");
  expect(offered).toContain("Request a replacement generation");
  expect(offered).not.toContain("Retry copying the video");
  // The queue row says it too.
  await page.goto(`/queue?q=${operationId}`);
  const queued = page.getByTestId("queue-row");
  await expect(queued).toHaveCount(1);
  await expect(queued.getByTestId("last-attempt-failed")).toBeVisible();
  await expect(queued.getByTestId("waiting-on")).toContainText("waiting on a reviewer");
  await page.goto(`/cases/${caseId}`);
  const accept = await reviewDecision(
    page,
    "Accept that the outputs are lost",
    "Replicate removed the files after an hour; the customer was refunded.",
  );
  await expect(accept).toContainText("the money on hold stays open for finance");
  await accept.getByRole("button", { name: "Accept lost outputs" }).click();
  await expect.poll(stateOf).toBe("resolved");
  await page.reload();
  await expect(page.getByText("resolved, hold open — needs a decision").first()).toBeVisible();

  await login("finance@demo.local");
  await page.goto("/finance");
  const summary = page.getByTestId("finance-needs-decision");
  await expect(summary).toContainText("Resolved, hold open — needs a decision");
  await summary.getByRole("link", { name: "Show only these holds" }).click();
  const row = page.locator(`[data-hold-id="${holdId}"]`);
  await expect(row).toContainText("Resolved, hold open — needs a decision");
  await expect(row).toContainText(`${CURRENCY} 3.00`);
});
