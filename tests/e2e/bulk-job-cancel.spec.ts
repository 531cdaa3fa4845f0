import { PROGRESS_MS } from "./fixtures/bulk-progress";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Decision 065: a confirmed bulk action is a tracked job; at one case a minute, the first case is
// done at once and the next waits a minute, so the cancel lands between them on any machine.
const run = Date.now().toString(36);

test("a tracked bulk job cancelled midway: progress shows, cancel stops it, the counts add up", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const producer = `e2e-bulkjob-${run}`;
  const apiKey = createApiKey(producer);
  for (const n of [1, 2, 3]) {
    await parkThroughApi(request, apiKey, {
      operationId: `e2e-bulkjob-${run}-${n}`,
      stage: "polling",
      amountMicros: 100_000,
      currency: "USD",
    });
  }
  await login("reviewer@demo.local");
  await page.goto(`/queue?producer=${producer}&state=parked`);
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  // The bulk box shows once a case is picked (decision 063); it then offers the whole view too.
  await page.getByTestId("queue-row").first().getByRole("checkbox").check();
  await bulk.getByLabel("every case matching this view").check();
  await bulk.getByLabel("Action", { exact: true }).selectOption("escalate");
  await bulk.getByLabel("Evidence for every case").fill("Provider incident INC-3300: a lead should decide.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: "Escalate 3 cases?" })).toBeVisible();
  await bulk.getByLabel("Pace").selectOption("one_a_minute");
  await bulk.getByRole("button", { name: "Escalate 3" }).click();

  const job = bulk.getByTestId("bulk-job");
  await expect(job.getByRole("status")).toContainText("Running: 1 of 3 done, 0 skipped, 0 failed.", {
    timeout: PROGRESS_MS,
  });
  await expect(job.getByRole("progressbar", { name: "Progress" })).toBeVisible();
  await job.getByRole("button", { name: "Cancel the rest" }).click();
  await expect(job.getByRole("status")).toContainText("Cancelled: 1 of 3 done, 0 skipped, 0 failed, 2 not done.", {
    timeout: PROGRESS_MS,
  });
  await expect(job.getByRole("status")).toContainText("Done for 1 case; skipped 0.");
  await expect(job.getByRole("button", { name: "Cancel the rest" })).toHaveCount(0);

  // The oldest case was escalated with the evidence given; the newest was left as it was.
  await page.goto(`/queue?producer=${producer}&state=parked`);
  await page.getByRole("link", { name: `e2e-bulkjob-${run}-1` }).click();
  await expect(page.getByTestId("timeline")).toContainText("Provider incident INC-3300");
  await page.goto(`/queue?producer=${producer}&state=parked`);
  await page.getByRole("link", { name: `e2e-bulkjob-${run}-3` }).click();
  await expect(page.getByTestId("timeline")).toContainText("Parked");
  await expect(page.getByTestId("timeline")).not.toContainText("Provider incident INC-3300");
});
