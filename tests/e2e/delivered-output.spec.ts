import type { APIRequestContext } from "@playwright/test";
import { E2E_SIMULATOR_URL } from "@/playwright.config";
import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, tickUntil } from "./fixtures/producer";

// Decision 067: once the worker has copied a delivery, the people who export evidence play and
// download the stored video from the case page; triage roles see its size only. Everything runs for
// real: the simulator's job, the worker's copy, the route that serves the stored file.
const run = Date.now().toString(36);

// Minted once for the file by the operator's own command (a Node process each), before any browser work.
let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-output-${run}`);
  workerToken = createWorkerToken(`e2e-output-worker-${run}`);
});

async function seedFinishedJob(request: APIRequestContext): Promise<{ id: string; model: string }> {
  const response = await request.post(`${E2E_SIMULATOR_URL}/__admin/jobs`, {
    data: { provider: "replicate", outcome: "succeeded", queuedMs: 0, runningMs: 0 },
  });
  expect(response.status(), await response.text()).toBe(201);
  const job = await response.json();
  return { id: job.id, model: job.model };
}

test("a copied delivery plays and downloads for a reviewer; an operator sees its size only", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const job = await seedFinishedJob(request);
  const operationId = `e2e-output-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "delivery",
      provider: "replicate",
      model: job.model,
      providerJobId: job.id,
      requestFingerprint: `sha256:${"ce".repeat(32)}`,
      evidence: { summary: "download failed on a reset", observedAt: new Date().toISOString() },
      hold: { holdId: `hold-output-${run}`, amountMicros: 2_000_000, currency: "CHF" },
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  const { caseId } = await parked.json();

  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  const approve = await reviewDecision(page, "Retry copying the video", "The copy failed on a reset; copy it again.");
  await approve.getByRole("button", { name: "Approve copying" }).click();
  const stateOf = async () => (await (await page.request.get(`/api/v1/cases/${caseId}`)).json()).state;
  await expect.poll(stateOf).toBe("ready");
  expect(await tickUntil(request, workerToken, (results) => results.some((r) => r.caseId === caseId))).toBe(true);

  await page.reload();
  const files = page.getByTestId("delivered-files");
  const play = files.getByRole("link", { name: "Play output 0" });
  await expect(play).toBeVisible();
  const href = await play.getAttribute("href");
  const played = await page.request.get(href ?? "");
  expect(played.status()).toBe(200);
  expect(played.headers()["content-disposition"]).toMatch(/^inline; filename="e2e-output-/);
  expect((await played.body()).length).toBeGreaterThan(0);
  const downloaded = await page.request.get(`${href}?download=1`);
  expect(downloaded.headers()["content-disposition"]).toMatch(/^attachment; /);

  await login("operator@demo.local");
  await page.goto(`/cases/${caseId}`);
  await expect(page.getByTestId("delivered-files")).toContainText("Output 0");
  await expect(page.getByTestId("delivered-files").getByRole("link", { name: /Play/ })).toHaveCount(0);
  expect((await page.request.get(href ?? "")).status()).toBe(403);
});
