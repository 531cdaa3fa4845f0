-- The queue finds a case by part of any of its IDs ("1016" finds demo-order-1016), in every state.
--
-- One trigram index over the three IDs joined by a unit separator (a character no one types into a
-- search box, so a match cannot straddle two IDs): a single index to keep up on every case write
-- instead of three. pg_trgm ships with PostgreSQL and is a trusted extension, so the database's
-- owner may create it. The expression must be spelled exactly so for the planner to use the index:
-- lib/services/case/case-filter.ts holds its one copy in the code.
--
-- A trusted extension's functions belong to the bootstrap superuser, so they get a schema of their
-- own and `public` keeps only the application's objects (which the owner role owns and later
-- migrations alter). Where pg_trgm is already installed, in whatever schema, that copy serves.
CREATE SCHEMA IF NOT EXISTS "extensions";
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA "extensions";

DO $$
DECLARE
  home text;
BEGIN
  SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'pg_trgm';
  EXECUTE format(
    'CREATE INDEX "cases_ids_trgm" ON "cases" USING gin '
    '(("operation_id" || E''\x1f'' || "attempt_id" || E''\x1f'' || coalesce("provider_job_id", '''')) %I.gin_trgm_ops)',
    home);
END
$$;

-- Saved views: a person's named queue filters, kept as the queue's own URL query.
CREATE TABLE "saved_views" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "saved_views_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "saved_views_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE
);
CREATE UNIQUE INDEX "saved_views_user_id_name_key" ON "saved_views"("user_id", "name");
