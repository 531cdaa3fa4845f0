import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// Decision 064: a reviewer pauses a provider in the console; every page the pause affects says so
// (the queue, and the case page of a case of that provider), and resuming takes the banner away.
// Decision 070: the breaker's pauses are rows of the same table, listed on the same page with their cause.
const run = Date.now().toString(36);

async function noSeriousViolations(page: Page, where: string) {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    const serious = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} on ${where} at ${size.width} px: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(serious, serious.join("\n")).toEqual([]);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    expect(wide, `${where} is wider than ${size.width} px`).toBe(false);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

// A failed run must not leave later journeys paused.
test.afterAll(async () => {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  await client.query("DELETE FROM pauses WHERE reason LIKE $1", [`%${run}%`]);
  await client.end();
});

test("a reviewer pauses a provider, the queue and its case page say so, and a resume clears it", async ({
  page,
  login,
}) => {
  // Three pages checked by axe at two widths: minutes on a loaded two-core machine.
  test.setTimeout(240_000);
  const key = createApiKey(`e2e-pause-${run}`);
  const operationId = `e2e-pause-${run}`;
  await parkThroughApi(page.request, key, { operationId, stage: "polling", amountMicros: 250_000, currency: "USD" });

  await login("reviewer@demo.local");
  await page.goto("/queue");
  await expect(page.getByTestId("pause-banner")).toHaveCount(0);
  await page.getByRole("navigation").getByRole("link", { name: "Pauses" }).first().click();
  await expect(page.getByRole("heading", { name: "Pauses", level: 1 })).toBeVisible();
  await expect(page.getByText("Nothing is paused.")).toBeVisible();

  // Without a reason nothing is paused, and the form says what is missing.
  await page.getByLabel("What to pause").selectOption("provider");
  await page.getByLabel("Its name").fill("replicate");
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.getByText("say why")).toBeVisible();

  await page.getByLabel("Why", { exact: true }).fill(`Replicate answers 502 to every status check (${run})`);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  await expect(page.getByText("Paused the provider replicate.")).toBeVisible();
  await expect(page.getByText("Paused: provider replicate (by a person)")).toBeVisible();
  await noSeriousViolations(page, "the pauses page");

  await page.goto("/queue");
  const banner = page.getByTestId("pause-banner");
  await expect(banner).toContainText("Paused: provider replicate.");
  await expect(banner).toContainText("Replicate answers 502 to every status check");

  await page.goto(`/queue?q=${operationId}`);
  await page.getByRole("link", { name: operationId }).click();
  await expect(page.getByRole("heading", { name: /Operation/ })).toBeVisible();
  await expect(page.getByTestId("pause-banner")).toContainText(
    "This case is paused: recoveries and sends of provider replicate are paused.",
  );
  await page.emulateMedia({ colorScheme: "dark" });
  await noSeriousViolations(page, "the case page with a pause (dark)");
  await page.emulateMedia({ colorScheme: "light" });

  await page.getByRole("link", { name: "See pauses" }).click();
  await page.getByLabel("Why resume provider replicate").fill("Replicate answers again");
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByText("Nothing is paused.")).toBeVisible();

  await page.goto("/queue");
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  await expect(page.getByTestId("pause-banner")).toHaveCount(0);

  // The breaker's pause of this run's producer alone at replicate, as a trip writes it: the pauses
  // page names its cause and its end; it stops sends, not recoveries, so no page banner shows it.
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  await client.query(
    `INSERT INTO pauses (kind, value, at_provider, cause, reason, paused_by_label, until)
     VALUES ('producer', $1, 'replicate', 'breaker', $2, 'Unknown-outcome breaker', now() + interval '10 minutes')`,
    [`e2e-pause-${run}`, `Too many of this producer's recent sends ended with an unknown outcome (${run}).`],
  );
  await client.end();
  await page.goto("/pauses");
  const tripped = page.locator('li[data-cause="breaker"]', { hasText: `e2e-pause-${run}` });
  await expect(tripped).toContainText(
    `Paused: producer e2e-pause-${run} at provider replicate (by the unknown-outcome breaker, sends only)`,
  );
  await expect(tripped).toContainText("It ends on its own at");
  await expect(tripped).toContainText("An admin can resume it on the providers page.");
  await noSeriousViolations(page, "the pauses page with a breaker's pause");
  await page.goto("/queue");
  await expect(page.getByRole("heading", { name: "Queue" })).toBeVisible();
  await expect(page.getByTestId("pause-banner")).toHaveCount(0);
});
