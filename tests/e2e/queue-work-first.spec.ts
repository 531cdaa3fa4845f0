import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// The queue leads with the work (decision 063): at 1280x800 ten cases show above the fold, the
// filters fold into one row, the bulk box waits for a pick, the tab counts follow the filters, every
// column a person sorts by sorts, and "/" and "?" are there for the keyboard.
test.use({ viewport: { width: 1280, height: 800 } });

test("the queue shows ten cases above the fold, compact filters, counts that follow them, sorts and keys", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(120_000);
  // Ten cases of its own, each with both flags that once wrapped a row onto a second line, so the
  // verdict holds whatever else the database holds.
  const shop = `e2e-fold-${Date.now().toString(36)}`;
  const run = Date.now().toString(36).slice(-5);
  const apiKey = createApiKey(shop);
  for (let i = 0; i < 10; i++)
    await parkThroughApi(request, apiKey, {
      operationId: `fold-${run}-${i}`,
      stage: "polling",
      amountMicros: 1_000_000,
      currency: "XFD",
    });
  await flagEscalatedAndFailed(shop);
  await login("reviewer@demo.local");
  await page.goto(`/queue?producer=${shop}`);
  const rows = page.getByTestId("queue-row");
  await expect(page.locator("table[data-keys=on]")).toBeVisible();
  await expect(rows).toHaveCount(10);
  await expect(rows.getByTestId("last-attempt-failed")).toHaveCount(10);
  await expect(rows.getByText("escalated", { exact: true })).toHaveCount(10);
  const bottoms = await rows.evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().bottom));
  expect(bottoms.filter((bottom) => bottom <= 800).length, `row bottoms: ${bottoms.join(", ")}`).toBe(10);
  await page.goto("/queue");
  await expect(page.locator("table[data-keys=on]")).toBeVisible();

  // The filters are one row: the searches and a button that unfolds the rest.
  const filters = page.getByRole("form", { name: "Filter cases" });
  await expect(filters.getByLabel("Search IDs")).toBeVisible();
  await expect(filters.getByLabel("Search text")).toBeVisible();
  await expect(filters.getByLabel("Producer")).toBeHidden();
  await filters.getByRole("button", { name: "Filters" }).click();
  await expect(filters.getByLabel("Producer")).toBeVisible();

  // The bulk box shows once a case is picked, not before.
  const bulk = page.getByRole("region", { name: "Act on several cases" });
  await expect(bulk).toHaveCount(0);
  await rows.first().getByRole("checkbox").check();
  await expect(bulk).toBeVisible();

  // The tabs count the filtered view: with one provider, "All stages" counts the rows shown.
  const tabs = page.getByRole("navigation", { name: "Stages" });
  const allCount = () => tabs.getByRole("link", { name: /All stages/ }).getByTestId("stage-count");
  const everyOpen = Number(await allCount().textContent());
  await page.goto("/queue?provider=fal");
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "provider=fal");
  const falRows = await rows.count();
  expect(falRows).toBeGreaterThan(0);
  await expect(allCount()).toHaveText(String(falRows));
  expect(falRows).toBeLessThan(everyOpen);

  // Sort by money, most first, then by provider, A to Z and back.
  await page.goto("/queue");
  const held = page.getByRole("columnheader", { name: /On hold/ });
  await held.getByRole("link").click();
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "sort=amount");
  await expect(held).toHaveAttribute("aria-sort", "descending");
  const amounts = (await rows.locator("td:last-child").allInnerTexts()).map((t) => Number(t.replace(/[^0-9.]/g, "")));
  expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  const provider = page.getByRole("columnheader", { name: /Provider \/ model/ });
  await provider.getByRole("link").click();
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "sort=provider");
  await expect(provider).toHaveAttribute("aria-sort", "ascending");
  const names = await rows.getByTestId("row-provider").allInnerTexts();
  expect(names).toEqual([...names].sort());
  await provider.getByRole("link").click();
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "sort=provider_desc");
  const reversed = await rows.getByTestId("row-provider").allInnerTexts();
  expect(reversed).toEqual([...reversed].sort().reverse());
  // The last attempt's column only shows on the widest screens; its order is one of the Sort choices.
  await expect(page.getByRole("columnheader", { name: /Last attempt/ })).toBeHidden();
  const unfold = filters.getByRole("button", { name: "Filters" });
  if ((await unfold.getAttribute("aria-expanded")) !== "true") await unfold.click();
  await expect(filters.getByLabel("Sort")).toHaveValue("provider_desc");
  await filters.getByLabel("Sort").selectOption({ label: "latest attempt first, never attempted last" });
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", "sort=attempt_recent");

  // "/" goes to the search; "?" lists every key.
  await expect(page.locator("table[data-keys=on]")).toBeVisible();
  await page.keyboard.press("/");
  await expect(filters.getByLabel("Search IDs")).toBeFocused();
  await filters.getByLabel("Search IDs").blur();
  await page.keyboard.press("?");
  const shortcuts = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(shortcuts).toBeVisible();
  for (const what of ["Search IDs", "Next case", "Open the highlighted case", "Pick the highlighted case"])
    await expect(shortcuts).toContainText(what);
  await page.keyboard.press("Escape");
  await expect(shortcuts).toBeHidden();
});

/**
 * Marks a producer's open cases escalated and their last recovery failed, as the deadline sweep and
 * a worker's unresolved finish leave them (the flags a row shows), straight in the database.
 */
async function flagEscalatedAndFailed(shop: string) {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    await client.query(
      `WITH d AS (
         INSERT INTO decisions (case_id, episode, kind, action_kind, reviewer_id, evidence)
         SELECT c.id, c.episode, 'approve', 'resume_poll', u.id, 'checked again'
         FROM cases c CROSS JOIN users u WHERE c.producer = $1 AND u.email = 'reviewer@demo.local'
         RETURNING id, case_id)
       INSERT INTO recovery_actions (case_id, decision_id, kind, status, outcome, finished_at)
       SELECT case_id, id, 'resume_poll', 'unresolved', 'unresolved', now() FROM d`,
      [shop],
    );
    await client.query(
      `UPDATE cases SET escalated_at = now(), escalation_reason = 'the deadline to recover passed',
              last_attempt_at = now()
       WHERE producer = $1`,
      [shop],
    );
  } finally {
    await client.end();
  }
}
