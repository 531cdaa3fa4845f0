-- When the next alert round is due (docs/decisions/031-alerts.md, amendment 2026-12-04), one row
-- shared by every process: a worker takes a round by moving next_run_at forward in the same
-- statement, so rounds run every interval however many workers tick, and never two at once.
CREATE TABLE "alert_schedule" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_schedule_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_schedule_one_row" CHECK ("id")
);
INSERT INTO "alert_schedule" ("id") VALUES (true);

-- A rule whose destination is disabled is no longer judged: an episode it had open ends here, as it
-- does from now on when a destination is disabled, so that enabling it again starts afresh.
UPDATE "alert_firings" f SET "resolved_at" = CURRENT_TIMESTAMP
  FROM "alert_rules" r JOIN "alert_destinations" d ON d."id" = r."destination_id"
 WHERE f."rule_id" = r."id" AND f."resolved_at" IS NULL AND d."disabled_at" IS NOT NULL;
