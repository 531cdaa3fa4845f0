import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, parkThroughApi, seedFinishedJob, tickUntil } from "./fixtures/producer";

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

test("a copied delivery plays and downloads for a reviewer; an operator sees its size only", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const job = await seedFinishedJob(request);
  const operationId = `e2e-output-${run}`;
  const caseId = await parkThroughApi(request, apiKey, {
    operationId,
    stage: "delivery",
    providerJob: job,
    summary: "download failed on a reset",
    holdId: `hold-output-${run}`,
    amountMicros: 2_000_000,
    currency: "CHF",
  });

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
