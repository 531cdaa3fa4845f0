import { expect, test } from "./fixtures/login";

test("an operator triages: search, filter, sort, open a case with the keyboard, add a note, assign", async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  await login("operator@demo.local");
  await page.goto("/queue");
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  expect(await page.getByTestId("queue-row").count()).toBeGreaterThan(10);

  // Stage tabs carry live counts; a tab keeps the other filters and the count line counts the view.
  const tabs = page.getByRole("navigation", { name: "Stages" });
  const failedTab = tabs.getByRole("link", { name: /Generation failed/ });
  const failed = Number(await failedTab.getByTestId("stage-count").textContent());
  // Names the view it counts, so a check never reads the rows of the view before.
  const count = page.getByTestId("queue-count");
  expect(failed).toBeGreaterThan(0);
  await failedTab.click();
  await expect(page).toHaveURL(/stage=generation_failed/);
  await expect(failedTab).toHaveAttribute("aria-current", "page");
  await expect(count).toHaveText(`Showing ${failed} of ${failed} ${failed === 1 ? "case" : "cases"}`);
  await expect(page.getByTestId("queue-row")).toHaveCount(failed);

  // Columns sort by a click, and a second click reverses.
  const held = page.getByRole("columnheader", { name: /On hold/ });
  await held.getByRole("link").click();
  await expect(page).toHaveURL(/sort=amount/);
  await expect(page).toHaveURL(/stage=generation_failed/);
  await expect(count).toHaveAttribute("data-view", "stage=generation_failed&sort=amount");
  await expect(held).toHaveAttribute("aria-sort", "descending");
  const amountsOf = async () =>
    (await page.getByTestId("queue-row").locator("td:last-child").allInnerTexts()).map((t) =>
      Number(t.replace(/[^0-9.]/g, "")),
    );
  const most = await amountsOf();
  expect(most).toEqual([...most].sort((a, b) => b - a));
  await held.getByRole("link").click();
  await expect(count).toHaveAttribute("data-view", "stage=generation_failed&sort=smallest");
  await expect(held).toHaveAttribute("aria-sort", "ascending");
  const least = await amountsOf();
  expect(least).toEqual([...least].sort((a, b) => a - b));
  await expect(page.getByTestId("queue-row").first()).toContainText("Generation failed");

  // Filters apply as they change, money is typed as money in the currency chosen, all in the URL.
  await page.goto("/queue");
  const filters = page.getByRole("form", { name: "Filter cases" });
  // All but the searches fold behind one button, so the cases come first (decision 063).
  await filters.getByRole("button", { name: "Filters" }).click();
  await filters.getByLabel("Held at least, currency").selectOption("USD");
  await filters.getByLabel("Held at least, amount").fill("5");
  await expect(count).toHaveAttribute("data-view", "minHeld=5&currency=USD");
  for (const amount of await amountsOf()) expect(amount).toBeGreaterThanOrEqual(5);
  // A part of an ID finds its case, as it is typed; the empty view says why.
  await page.goto("/queue");
  await filters.getByLabel("Search IDs").fill("1005");
  await expect(count).toHaveAttribute("data-view", "q=1005");
  await expect(page.getByTestId("queue-row")).toHaveCount(1);
  await expect(page.getByTestId("queue-row")).toContainText("demo-order-1005");
  await filters.getByLabel("Search IDs").fill("no-such-order");
  await expect(page.getByText("No open case matches “no-such-order” in this view.")).toBeVisible();

  // A view can be saved under a name, opened again with one click, and deleted.
  await page.goto("/queue?stage=delivery&sort=amount");
  await page.getByRole("button", { name: "Save this view" }).click();
  const name = `Delivery by money ${Date.now().toString(36)}`;
  await page.getByLabel("Name this view").fill(name);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const saved = page.getByRole("region", { name: "Saved views" }).getByRole("link", { name });
  await expect(saved).toHaveAttribute("aria-current", "page");
  await page.goto("/queue");
  await saved.click();
  await expect(page).toHaveURL(/stage=delivery/);
  await expect(page).toHaveURL(/sort=amount/);
  await page.getByRole("button", { name: `Delete saved view ${name}` }).click();
  await expect(saved).toHaveCount(0);

  // The filter is in the URL: the same view opens from a shared link.
  await page.goto("/queue?q=demo-order-1005");
  await expect(page.getByTestId("queue-row")).toHaveCount(1);
  await expect(page.locator("table[data-keys=on]")).toBeVisible();
  await page.keyboard.press("j");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/cases\//);
  await expect(page.getByRole("heading", { name: /demo-order-1005/ })).toBeVisible();
  // The way back is to the same filtered view.
  await expect(page.getByRole("link", { name: "← Back to the queue" })).toHaveAttribute(
    "href",
    "/queue?q=demo-order-1005",
  );

  // Operators may note and assign, but are offered no recovery decisions.
  await expect(page.getByRole("button", { name: /Approve|Accept failure|Request replacement/ })).toHaveCount(0);
  await expect(page.getByRole("radio")).toHaveCount(0);
  // They are told who decides, and between what.
  const readOnly = page.getByTestId("read-only-explanation");
  await expect(readOnly).toContainText("needs the reviewer role");
  await expect(readOnly).toContainText("accept the failure");
  const note = page.getByRole("form", { name: "Add a note" });
  await note.getByLabel("Note").fill("Customer asked about this order; checking with the provider.");
  await note.getByRole("button", { name: "Add note" }).click();
  await expect(note.getByRole("status")).toHaveText("Done.");
  await expect(page.getByTestId("timeline")).toContainText("Customer asked about this order");

  const assign = page.getByRole("form", { name: "Assign" });
  await assign.getByLabel("Assignee").selectOption({ label: "Demo reviewer (reviewer@demo.local)" });
  await assign.getByLabel("Reason (kept in the timeline)").fill("reviewer on call");
  await assign.getByRole("button", { name: "Assign" }).click();
  // The case names its assignee, and its timeline has one entry naming them, with the reason.
  await expect(
    page
      .getByRole("definition")
      .filter({ hasText: /^Demo reviewer$/ })
      .first(),
  ).toBeVisible();
  const timeline = page.getByTestId("timeline");
  await expect(timeline.getByText("Assigned to Demo reviewer")).toHaveCount(1);
  await expect(timeline).toContainText("reviewer on call");
});
