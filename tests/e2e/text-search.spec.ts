import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Text search (decision 063): a person limited to one shop finds its case by a word of the error
// the producer reported, or of a note, and never the other shop's case with the same word.
const run = Date.now().toString(36);
const shopA = `e2e-text-a-${run}`;
const shopB = `e2e-text-b-${run}`;
const email = `text-${run}@example.com`;

test("a word of a case's error or note finds it, within the person's shop only", async ({ page, login, request }) => {
  test.setTimeout(120_000);
  const park = (key: string, operationId: string, summary: string) =>
    parkThroughApi(request, key, {
      operationId,
      stage: "submission_uncertain",
      amountMicros: 1_000_000,
      currency: "USD",
      summary,
    });
  await park(createApiKey(shopA), `e2e-text-mine-${run}`, `Gateway said Heron${run} refused the create`);
  await park(createApiKey(shopB), `e2e-text-theirs-${run}`, `Gateway said heron${run} too; also osprey${run}`);
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  await client.query(`INSERT INTO users (email, name, roles, producer_scope) VALUES ($1, $2, '{operator}', $3)`, [
    email,
    `Text ${run}`,
    [shopA],
  ]);
  await client.end();

  await login(email);
  await page.goto("/queue");
  const filters = page.getByRole("form", { name: "Filter cases" });
  const rows = page.getByTestId("queue-row");
  await filters.getByLabel("Search text").fill(`heron${run}`);
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", `text=heron${run}`);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(`e2e-text-mine-${run}`);
  // A word only the other shop's case has finds nothing.
  await filters.getByLabel("Search text").fill(`osprey${run}`);
  await expect(page.getByTestId("queue-count")).toHaveAttribute("data-view", `text=osprey${run}`);
  await expect(rows).toHaveCount(0);

  // A note's word finds its case too.
  await page.goto(`/queue?q=e2e-text-mine-${run}`);
  await rows.first().getByRole("link").first().click();
  // Typed only once the case page is live: text typed while it hydrates is lost with the server's form.
  await page.waitForURL(/\/cases\//);
  await expect(page.locator("p[data-keys]")).toHaveAttribute("data-keys", "on");
  const note = page.getByRole("form", { name: "Add a note" });
  await note.getByLabel("Note").fill(`Customer calls it the kestrel${run} order`);
  await note.getByRole("button", { name: "Add note" }).click();
  await expect(note.getByRole("status")).toHaveText("Done.");
  await page.goto(`/queue?text=KESTREL${run}`);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(`e2e-text-mine-${run}`);
});
