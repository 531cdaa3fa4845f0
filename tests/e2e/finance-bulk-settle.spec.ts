import AxeBuilder from "@axe-core/playwright";
import { PROGRESS_MS } from "./fixtures/bulk-progress";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Decision 065: finance decides resolved cases' open holds together, through a dry run that says
// what it would settle or release and what it skips and why, then a tracked job. Its own currency
// (SEK) keeps finance.spec's test-currency totals its own.
const run = Date.now().toString(36);

test("finance's bulk settle skips holds with no completed job, and a bulk release decides them", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  const producer = `e2e-finbulk-${run}`;
  const apiKey = createApiKey(producer);
  for (const n of [1, 2]) {
    await parkThroughApi(request, apiKey, {
      operationId: `e2e-finbulk-${run}-${n}`,
      stage: "generation_failed",
      amountMicros: 500_000,
      currency: "SEK",
      holdId: `hold-finbulk-${run}-${n}`,
    });
  }
  // A reviewer accepts both failures (a bulk job too): the cases are resolved and their holds stay open.
  await login("reviewer@demo.local");
  await page.goto(`/queue?producer=${producer}&state=parked`);
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  // The bulk box shows once a case is picked (decision 063); it then offers the whole view too.
  await page.getByTestId("queue-row").first().getByRole("checkbox").check();
  await bulk.getByLabel("every case matching this view").check();
  await bulk.getByLabel("Action", { exact: true }).selectOption("accept_failure");
  await bulk.getByLabel("Evidence for every case").fill("The provider reported both as failed.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await bulk.getByRole("button", { name: "Accept failure 2" }).click();
  await expect(bulk.getByTestId("bulk-job").getByRole("status")).toContainText("Done for 2 cases; skipped 0.", {
    timeout: PROGRESS_MS,
  });

  await login("finance@demo.local");
  await page.goto(`/finance?view=needs_decision&producer=${producer}`);
  const decide = page.getByRole("region", { name: "Decide these holds together" });
  await decide.getByLabel("Accounting note for every hold").fill("Month-end close");
  await decide.getByLabel("Evidence for every hold").fill("Provider invoice INV-2026-12");
  await decide.getByRole("button", { name: "Review what would happen" }).click();
  // Nothing completed: a bulk settle charges nothing, and says why for each hold.
  await expect(decide).toContainText("Nothing to do: no hold here allows this decision.");
  await expect(decide.getByTestId("bulk-skipped")).toContainText("no completed job is known");
  await expect(decide.getByTestId("bulk-skipped")).toContainText("nothing_completed");

  await decide.getByLabel("Decision").selectOption("release");
  await decide.getByRole("button", { name: "Review what would happen" }).click();
  await expect(decide.getByRole("heading", { name: "Release 2 holds?" })).toBeVisible();
  await expect(decide.getByTestId("bulk-holds")).toContainText(`e2e-finbulk-${run}-1`);
  const axe = await new AxeBuilder({ page })
    .include('[aria-labelledby="bulk-decide-heading"]')
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await decide.getByRole("button", { name: "Release 2" }).click();
  const status = decide.getByTestId("bulk-job").getByRole("status");
  await expect(status).toContainText("Finished: 2 of 2 done, 0 skipped, 0 failed.", { timeout: PROGRESS_MS });
  await expect(status).toContainText("Done for 2 holds; skipped 0.");

  await page.goto(`/finance?status=released&producer=${producer}`);
  await expect(page.getByText(`hold-finbulk-${run}-1`).first()).toBeVisible();
});
