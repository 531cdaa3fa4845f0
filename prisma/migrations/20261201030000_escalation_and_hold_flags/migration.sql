-- Rule 13: every open case has a next step, and nothing resolves silently with money held.
--
-- A case past the deadline its producer gave is escalated once by the worker's sweep: a flag, never a
-- change of state or money. The flag belongs to the episode; a re-park clears it.
ALTER TABLE "cases" ADD COLUMN "escalated_at" TIMESTAMPTZ(3);
ALTER TABLE "cases" ADD COLUMN "escalation_reason" TEXT;

-- The sweep looks only at open cases not escalated yet that have a deadline, earliest first.
CREATE INDEX "cases_escalation_due" ON "cases"("retry_deadline")
  WHERE "state" <> 'resolved' AND "escalated_at" IS NULL AND "retry_deadline" IS NOT NULL;
-- The queue's "escalated" filter and the escalated figure: open escalated cases, oldest first.
CREATE INDEX "cases_open_escalated_opened_at_id" ON "cases"("opened_at", "id")
  WHERE "state" <> 'resolved' AND "escalated_at" IS NOT NULL;
-- Resolved cases that still hold money wait for finance. cases.held_micros is what the case's held
-- holds add up to (every reserve adds, every settle or release takes away), so the few such cases
-- of a million are found without reading the holds of the rest.
CREATE INDEX "cases_resolved_hold_open_opened_at_id" ON "cases"("opened_at", "id")
  WHERE "state" = 'resolved' AND "held_micros" > 0;
-- A finance backlog can be tens of thousands of them (the console benchmark seeds one), so the
-- queue's "most money first" view of them has its own index too.
CREATE INDEX "cases_resolved_hold_open_held_micros_id" ON "cases"("held_micros", "id")
  WHERE "state" = 'resolved' AND "held_micros" > 0;

-- The running total of those cases, by stage and currency: one more figure of a case, kept by the
-- triggers of migration 20261130000000_console_at_scale, which call this function for each row.
CREATE OR REPLACE FUNCTION "stat_case_figures"(stage "Stage", state "CaseState", opened_at TIMESTAMPTZ, currency TEXT,
                                               held_micros BIGINT, sign INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'open_cases'::text, $1, NULL::text, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour,
         $6::bigint, 0::bigint, 0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  WHERE $2 <> 'resolved'
  UNION ALL
  SELECT 'case_held', $1, $4, NULL, NULL, NULL, NULL, NULL, $6, $6 * $5, 0, 0
  WHERE $5 <> 0
  UNION ALL
  SELECT 'resolved_held', $1, $4, NULL, NULL, NULL, NULL, NULL, $6, $6 * $5, 0, 0
  WHERE $2 = 'resolved' AND $5 > 0
$$;

-- Backfill from the partial index above rather than stat_rebuild(), which would lock every writer out.
INSERT INTO "stat_totals" ("figure", "stage", "currency", "count", "micros")
SELECT 'resolved_held', "stage", "currency", count(*), sum("held_micros")
FROM "cases" WHERE "state" = 'resolved' AND "held_micros" > 0
GROUP BY "stage", "currency";
