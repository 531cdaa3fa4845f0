import { randomBytes } from "node:crypto";
import pg from "pg";
import { databaseUrl, expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";
import { expectAccessibleEverywhere } from "./fixtures/page-checks";

// Decision 066: the case page lists each producer notification with every send's answer, and an
// operator sends a given-up one again: it goes back in the queue, once, and the timeline says who.
const run = Date.now().toString(36);
const webhookId = `msg_e2e_${run}`;
const eventType = `case.resend_check_${run}`;

test.beforeAll(async () => {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; producer: string }>(
      "SELECT id, producer FROM cases WHERE operation_id = 'demo-order-1000'",
    );
    const target = rows[0];
    if (!target) throw new Error("no demo case");
    await client.query(
      `INSERT INTO notification_endpoints (producer, url, signing_secret) VALUES ($1, 'https://example.com/hooks', $2)
       ON CONFLICT (producer) DO UPDATE SET disabled_at = NULL`,
      [target.producer, `whsec_${randomBytes(32).toString("base64")}`],
    );
    await client.query(
      `INSERT INTO notification_outbox (id, producer, case_id, event_type, payload, attempts, give_up_at, last_status)
       VALUES ($1, $2, $3, $4, '{}'::jsonb, 12, now(), 503)`,
      [webhookId, target.producer, target.id, eventType],
    );
    await client.query(
      `INSERT INTO notification_attempts (message_id, attempt, outcome, status, answered_at)
       VALUES ($1, 11, 'no_answer', NULL, now() - interval '2 hours'), ($1, 12, 'error_answer', 503, now() - interval '1 hour')`,
      [webhookId],
    );
  } finally {
    await client.end();
  }
});

test("an operator reads each send's answer and sends a given-up notification again, once", async ({ page, login }) => {
  test.slow();
  await login("operator@demo.local");
  await openPage(page, "case");
  const log = page.getByRole("region", { name: "Notifications to the producer" });
  const item = log.getByRole("listitem").filter({ hasText: /Case resend check/ });
  await expect(item).toContainText("Given up");
  const sends = item.getByRole("table");
  await expect(sends.getByRole("row")).toHaveCount(3);
  await expect(sends).toContainText("No answer: no connection, or it timed out");
  await expect(sends).toContainText("The receiver answered with an error");
  await expect(sends).toContainText("HTTP 503");
  await expectAccessibleEverywhere(page, () => expect(log).toBeVisible());

  await item.getByRole("button", { name: /^Send again/ }).click();
  await expect(item.getByRole("status")).toContainText("Queued");
  await expect(item).toContainText("Waiting to be sent");
  await expect(item.getByRole("button", { name: /^Send again/ })).toHaveCount(0);

  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  const audit = await client
    .query<{ actor_label: string }>(
      "SELECT actor_label FROM audit_events WHERE kind = 'notification_requeued' AND evidence->>'webhookId' = $1",
      [webhookId],
    )
    .finally(() => client.end());
  expect(audit.rows.map((r) => r.actor_label)).toEqual(["operator@demo.local"]);
});
