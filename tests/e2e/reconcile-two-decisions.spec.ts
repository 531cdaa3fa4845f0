import { requestFingerprint } from "@/lib/domain/fingerprint";
import { E2E_SIMULATOR_URL } from "@/playwright.config";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, tickUntil } from "./fixtures/producer";

// Decision 061: a job the automated search matches on every count is attached and its status
// checked in two decisions (ask, confirm), the match itself prefilled as the evidence.
const run = Date.now().toString(36);
const MODEL = "minimax/video-01";
let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-two-decisions-${run}`);
  workerToken = createWorkerToken(`e2e-two-decisions-worker-${run}`);
});

test("a 100% match is reconciled and its status check queued in two decisions", async ({ page, login, request }) => {
  test.setTimeout(120_000);
  const input = { prompt: `a lighthouse at dusk, ${run}`, seconds: 5 };
  const seeded = await request.post(`${E2E_SIMULATOR_URL}/__admin/jobs`, {
    data: { provider: "replicate", model: MODEL, input, outcome: "stuck", queuedMs: 0, runningMs: 0 },
  });
  expect(seeded.status(), await seeded.text()).toBe(201);
  const job: { id: string } = await seeded.json();

  const operationId = `e2e-two-decisions-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "submission_uncertain",
      provider: "replicate",
      model: MODEL,
      requestFingerprint: requestFingerprint(input),
      submittedAt: new Date().toISOString(),
      evidence: { summary: "the create call timed out", observedAt: new Date().toISOString() },
      hold: { holdId: `hold-${operationId}`, amountMicros: 1_500_000, currency: "USD" },
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  const { caseId } = await parked.json();

  await login("reviewer@demo.local");
  const suggestion = page.getByTestId("suggestion").filter({ hasText: job.id });
  // The worker's search finds the job (other uncertain cases may be searched first).
  const found = await tickUntil(request, workerToken, async () => {
    await page.goto(`/cases/${caseId}`);
    return (await suggestion.count()) > 0;
  });
  expect(found).toBe(true);
  await expect(suggestion).toContainText("100%");
  await expect(suggestion.getByLabel("Evidence")).toHaveValue(/confidence 100%/);

  // Decision one: ask. Nothing is sent yet; the confirmation says what will happen and the money.
  await suggestion.getByRole("button", { name: "Attach this job and check its status…" }).click();
  const confirm = suggestion.getByTestId("suggestion-confirm");
  await expect(confirm.getByRole("heading", { name: "Confirm: attach this job and check its status" })).toBeFocused();
  await expect(confirm).toContainText(`Attaches provider job ${job.id} to this case and queues status checks`);
  await expect(confirm).toContainText("Nothing is bought. Money on hold stays held until the outcome is known: $1.50");
  // Decision two: confirm. The job is attached and its check queued for the worker.
  await confirm.getByRole("button", { name: "Attach and check" }).click();
  await expect(page.getByTestId("waiting-on").first()).toContainText(/waiting on the (worker|provider)/);
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByText(`Provider job ${job.id} attached`)).toBeVisible();
  await expect(timeline.getByText("Approved: resume status checks")).toBeVisible();
});
