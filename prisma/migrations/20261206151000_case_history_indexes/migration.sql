-- The history page counts cases opened and resolved per hour over 14 days by stage, provider and
-- producer (decision 066): read from these indexes alone (index-only scans), so the last 14 days
-- cost the rows in them, not the table's million. Moves into "parked" are read from audit_events
-- by its (kind, created_at) index.
CREATE INDEX "cases_history_opened_idx" ON "cases"("opened_at") INCLUDE ("stage", "provider", "producer");
CREATE INDEX "cases_history_resolved_idx" ON "cases"("resolved_at") INCLUDE ("stage", "provider", "producer")
  WHERE "resolved_at" IS NOT NULL;
