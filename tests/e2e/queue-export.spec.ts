import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures/login";

// A queue view as a CSV file (decision 063): the view's cases in its order, named by operation ID,
// amounts in micro-units and as a decimal beside the currency.
test("an operator downloads a filtered, sorted queue view as CSV", async ({ page, login }) => {
  await login("operator@demo.local");
  await page.goto("/queue?provider=fal&sort=amount");
  const count = page.getByTestId("queue-count");
  await expect(count).toHaveText(/^Showing \d+ of \d+ cases?$/);
  const shown = await page.getByTestId("queue-row").count();
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: /Download CSV/ }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^queue-\d{4}-\d{2}-\d{2}\.csv$/);
  const text = await readFile((await download.path()) ?? "", "utf8");
  const [header = "", ...lines] = text.trim().split("\n");
  const columns = header.split(",");
  expect(columns).toEqual(expect.arrayContaining(["operation_id", "held_micros", "held_amount", "currency"]));
  expect(lines).toHaveLength(shown);
  const cell = (line: string, name: string) => line.split(",")[columns.indexOf(name)] ?? "";
  for (const line of lines) {
    expect(cell(line, "provider")).toBe("fal");
    expect(cell(line, "operation_id")).toMatch(/^demo-order-\d+$/);
    expect(Number(cell(line, "held_micros")) / 1_000_000).toBe(Number(cell(line, "held_amount")));
  }
  const micros = lines.map((line) => Number(cell(line, "held_micros")));
  expect(micros).toEqual([...micros].sort((a, b) => b - a));
  expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
});
