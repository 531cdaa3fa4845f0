-- The queue sorts by stage and by provider as well as by age and money (decision 063). Keyset
-- pagination orders by (column, id); each order has its own index so page 1,000 costs what page 1
-- costs, as the (opened_at, id) and (held_micros, id) indexes do for the older orders.
CREATE INDEX "cases_stage_id_idx" ON "cases" ("stage", "id");
CREATE INDEX "cases_provider_id_idx" ON "cases" ("provider", "id");

-- Text search finds a case by a word of its evidence (the summary a producer parked it with, which
-- carries the provider's error) or of a person's note. Trigram indexes, like the ID search's
-- (20261202050000_queue_search), from the pg_trgm that migration installed, in whatever schema it
-- lives: both exist on PostgreSQL 15 and on the embedded PostgreSQL alike. The expressions must be
-- spelled exactly so for the planner to use them: lib/services/case/text-search.ts holds their
-- one copy in the code. The notes' index is partial: only note events carry a person's text.
DO $$
DECLARE
  home text;
BEGIN
  SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'pg_trgm';
  EXECUTE format(
    'CREATE INDEX "cases_evidence_summary_trgm" ON "cases" USING gin '
    '((coalesce("last_evidence"->>''summary'', '''')) %I.gin_trgm_ops)',
    home);
  EXECUTE format(
    'CREATE INDEX "audit_events_note_text_trgm" ON "audit_events" USING gin '
    '((coalesce("evidence"->>''text'', '''')) %I.gin_trgm_ops) WHERE "kind" = ''note_added''',
    home);
END
$$;

-- A saved view its owner shares is offered to the whole team, read-only to everyone else.
ALTER TABLE "saved_views" ADD COLUMN "shared" BOOLEAN NOT NULL DEFAULT false;
