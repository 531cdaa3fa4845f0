import type { APIRequestContext } from "@playwright/test";
import { E2E_SIMULATOR_URL } from "@/playwright.config";
import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { createApiKey, createWorkerToken, tickUntil } from "./fixtures/producer";

// Decision 072: two paid jobs whose outputs are the same bytes. The simulator gives both jobs one
// output seed, the worker copies both for real, and finance and the case page show the pair.
// Its own currency (PLN), so no other spec's totals move.
const run = Date.now().toString(36);
const CURRENCY = "PLN";

let apiKey = "";
let workerToken = "";
test.beforeAll(() => {
  apiKey = createApiKey(`e2e-same-video-${run}`);
  workerToken = createWorkerToken(`e2e-same-video-worker-${run}`);
});

async function deliveryCase(request: APIRequestContext, name: string, amountMicros: number) {
  const seeded = await request.post(`${E2E_SIMULATOR_URL}/__admin/jobs`, {
    data: { provider: "replicate", outcome: "succeeded", queuedMs: 0, runningMs: 0, outputSeed: `same-${run}` },
  });
  expect(seeded.status(), await seeded.text()).toBe(201);
  const job = await seeded.json();
  const operationId = `e2e-same-video-${name}-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "delivery",
      provider: "replicate",
      model: job.model,
      providerJobId: job.id,
      requestFingerprint: `sha256:${(name === "first" ? "1a" : "2b").repeat(32)}`,
      evidence: { summary: "download failed on a reset", observedAt: new Date().toISOString() },
      hold: { holdId: `hold-same-video-${name}-${run}`, amountMicros, currency: CURRENCY },
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  return { caseId: (await parked.json()).caseId as string, operationId };
}

test("finance sees the pair of jobs that delivered the same video, and the case page flags it", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(150_000);
  const first = await deliveryCase(request, "first", 3_000_000);
  const second = await deliveryCase(request, "second", 4_500_000);

  await login("reviewer@demo.local");
  for (const { caseId } of [first, second]) {
    await page.goto(`/cases/${caseId}`);
    const approve = await reviewDecision(page, "Retry copying the video", "The copy failed on a reset; copy it again.");
    await approve.getByRole("button", { name: "Approve copying" }).click();
    const stateOf = async () => (await (await page.request.get(`/api/v1/cases/${caseId}`)).json()).state;
    await expect.poll(stateOf).toBe("ready");
  }
  const resolved = new Set<string>();
  const bothCopied = await tickUntil(request, workerToken, (results) => {
    for (const r of results) if (r.outcome === "resolved") resolved.add(r.caseId);
    return resolved.has(first.caseId) && resolved.has(second.caseId);
  });
  expect(bothCopied).toBe(true);

  await page.goto(`/cases/${second.caseId}`);
  const flag = page.getByTestId("duplicate-output-flags");
  await expect(flag).toContainText(
    `Suspected paid duplicate: the same video was delivered for operation ${first.operationId}`,
  );
  await flag.getByRole("link", { name: first.operationId }).click();
  await expect(page).toHaveURL(new RegExp(`/cases/${first.caseId}`));
  await expect(page.getByTestId("duplicate-output-flags")).toContainText(second.operationId);

  await login("finance@demo.local");
  await page.goto("/finance");
  const section = page.getByRole("region", { name: "Same video delivered twice" });
  await expect(section).toBeVisible();
  const row = page.getByTestId("duplicate-outputs").getByRole("row").filter({ hasText: first.operationId });
  await expect(row).toContainText(second.operationId);
  await expect(row).toContainText(`${CURRENCY} 3.00`);
  await expect(row).toContainText(`${CURRENCY} 4.50`);
});
