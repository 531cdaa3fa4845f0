import AxeBuilder from "@axe-core/playwright";
import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";

// Decision 064: the workers page shows each worker's heartbeat, leases, current action, last error
// and rescued leases, in words, with every time labelled; it fits a phone and passes axe.
const run = Date.now().toString(36);
const workerId = `e2e-host-${run}`;

async function sql(text: string, values: unknown[]) {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

test.afterAll(() => sql("DELETE FROM worker_heartbeats WHERE worker_id = $1", [workerId]));

test("an operator reads each worker's heartbeat, last error and rescued leases", async ({ page, login }) => {
  test.setTimeout(240_000);
  await sql(
    `INSERT INTO worker_heartbeats (worker_id, last_tick_at, first_seen_at, last_error, last_error_at, leases_lost, leases_rescued)
     VALUES ($1, now(), now() - interval '1 hour', 'status check answered 502', now() - interval '5 minutes', 2, 3)`,
    [workerId],
  );
  await login("operator@demo.local");
  await page.goto("/queue");
  await page.getByRole("navigation").getByRole("link", { name: "Workers" }).first().click();
  await expect(page.getByRole("heading", { name: "Workers", level: 1 })).toBeVisible();

  const row = page.getByRole("row").filter({ hasText: workerId });
  await expect(row).toContainText("Ticking");
  await expect(row).toContainText("first heard from");
  await expect(row).toContainText("status check answered 502");
  await expect(row).toContainText("Nothing");
  await expect(row.getByRole("cell").nth(4)).toHaveText("2");
  await expect(row.getByRole("cell").nth(5)).toHaveText("3");
  await expect(page.getByRole("columnheader", { name: "Its leases that ran out" })).toBeVisible();
  // Every time is a labelled <time>, never a bare ISO string.
  await expect(row.locator("time").first()).toHaveAttribute("datetime", /\d{4}-\d{2}-\d{2}T/);
  await expect(row).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}/);

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(size);
      const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      const serious = results.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id} at ${size.width} px (${scheme}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      expect(serious, serious.join("\n")).toEqual([]);
      const wide = await page.evaluate(
        () => document.documentElement.scrollWidth > document.documentElement.clientWidth,
      );
      expect(wide, `the workers page is wider than ${size.width} px`).toBe(false);
    }
  }
});
