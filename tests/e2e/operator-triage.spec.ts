import { expect, test } from "./fixtures/login";

test("an operator triages: search, filter, sort, open a case with the keyboard, add a note, assign", async ({
  page,
  login,
}) => {
  await login("operator@demo.local");
  await page.goto("/queue");
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  expect(await page.getByTestId("queue-row").count()).toBeGreaterThan(10);

  await page.getByLabel("Stage").selectOption("generation_failed");
  await page.getByLabel("Sort").selectOption("amount");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/stage=generation_failed/);
  await expect(page).toHaveURL(/sort=amount/);
  const amounts = await page.getByTestId("queue-row").locator("td:last-child").allInnerTexts();
  const numbers = amounts.map((text) => Number(text.replace(/[^0-9.]/g, "")));
  expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  await expect(page.getByTestId("queue-row").first()).toContainText("Generation failed");

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
  await expect(page.getByText("Demo reviewer", { exact: true })).toBeVisible();
  await expect(page.getByTestId("timeline")).toContainText("assigned");
});
