import AxeBuilder from "@axe-core/playwright";
import { PROGRESS_MS } from "./fixtures/bulk-progress";
import { expect, test } from "./fixtures/login";

test("a reviewer escalates picked cases, and accepting failure in bulk skips a case that has none, saying why", async ({
  page,
  login,
}) => {
  test.setTimeout(60_000);
  await login("reviewer@demo.local");
  await page.goto("/queue?stage=polling&state=parked");
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  const rows = page.getByTestId("queue-row");
  const picked = ((await rows.nth(0).getByRole("link").first().textContent()) ?? "").trim();
  await rows.nth(0).getByRole("checkbox").check();
  await rows.nth(1).getByRole("checkbox").check();
  await expect(bulk.getByLabel("the 2 selected on this page")).toBeChecked();
  const actions = bulk.getByLabel("Action", { exact: true });
  await actions.selectOption("escalate");
  await bulk.getByLabel("Evidence for every case").fill("Provider incident INC-2211: a lead should decide these.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: "Escalate 2 cases?" })).toBeVisible();
  await expect(bulk).toContainText("Money on hold involved: $");
  await bulk.getByRole("button", { name: "Escalate 2" }).click();
  await expect(bulk.getByRole("status")).toContainText("Done for 2 cases; skipped 0.", { timeout: PROGRESS_MS });
  await page.goto("/queue?stage=polling&state=parked");
  await page.getByRole("link", { name: picked }).first().click();
  await expect(page.getByTestId("timeline")).toContainText("Provider incident INC-2211");

  // One proven failure and one case to check: accepting failure acts on the first and says why not the second.
  await page.goto("/queue?state=parked");
  const parked = page.getByTestId("queue-row");
  await parked.filter({ hasText: "Generation failed" }).first().getByRole("checkbox").check();
  await parked.filter({ hasText: "Job to check" }).first().getByRole("checkbox").check();
  await expect(bulk.getByLabel("the 2 selected on this page")).toBeChecked();
  await actions.selectOption("accept_failure");
  await bulk.getByLabel("Evidence for every case").fill("The provider reported a content policy failure.");
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: "Accept failure 1 case?" })).toBeVisible();
  await expect(bulk.getByTestId("bulk-skipped")).toContainText("polling has no failure to accept");
  // The confirmation with its list of skipped cases passes axe like every console page.
  const axe = await new AxeBuilder({ page })
    .include('[aria-labelledby="bulk-heading"]')
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await bulk.getByRole("button", { name: "Accept failure 1" }).click();
  const done = bulk.getByRole("status");
  await expect(done).toContainText("Done for 1 case; skipped 1.", { timeout: PROGRESS_MS });
  await expect(done.getByTestId("bulk-skipped")).toContainText("action_not_permitted_for_stage");
});

test("an operator is offered only notes and assignment, and assigns picked cases to a reviewer", async ({
  page,
  login,
}) => {
  await login("operator@demo.local");
  await page.goto("/queue?stage=submission_uncertain");
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  const actions = bulk.getByLabel("Action", { exact: true });
  // Folded until something is picked: the rows stay on the first screen.
  await expect(actions).toHaveCount(0);
  await page.getByTestId("queue-row").nth(0).getByRole("checkbox").check();
  await expect(actions.locator("option")).toHaveText(["Assign to a reviewer", "Add a note"]);
  await actions.selectOption("assign");
  const assignTo = bulk.getByLabel("Assign to");
  const reviewer = ((await assignTo.locator("option").nth(1).textContent()) ?? "").trim();
  await assignTo.selectOption({ index: 1 });
  await bulk.getByRole("button", { name: "Review what would happen" }).click();
  await expect(bulk.getByRole("heading", { name: "Assign 1 case?" })).toBeVisible();
  await bulk.getByRole("button", { name: "Assign 1" }).click();
  await expect(bulk.getByRole("status")).toContainText("Done for 1 case; skipped 0.", { timeout: PROGRESS_MS });
  await page.getByTestId("queue-row").nth(0).getByRole("link").first().click();
  await expect(page.getByTestId("timeline")).toContainText("Assigned");
  await expect(page.getByText(reviewer).first()).toBeVisible();
});
