-- Retention by policy (docs/decisions/033-retention.md): after N days from resolution a case's
-- customer text is redacted in place and its stored videos are deleted; the facts finance and
-- audits need (ids, stages, amounts, decisions, actors, times, hashes) stay.

-- One row per scope: '*' is the global policy, any other value a producer's own (which wins).
-- NULL days: retention is off for that scope (a producer's NULL turns it off for that producer).
CREATE TABLE "retention_policies" (
    "scope" TEXT NOT NULL,
    "days" INTEGER,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by_id" UUID,

    CONSTRAINT "retention_policies_pkey" PRIMARY KEY ("scope"),
    CONSTRAINT "retention_policies_days_range" CHECK ("days" IS NULL OR ("days" >= 1 AND "days" <= 3650))
);

-- When the next run is due (one row): a worker takes it by moving next_run_at forward in the same
-- statement, so two workers at once run it once.
CREATE TABLE "retention_schedule" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_at" TIMESTAMPTZ(3),
    "last_redacted" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "retention_schedule_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "retention_schedule_one_row" CHECK ("id")
);
INSERT INTO "retention_schedule" ("id") VALUES (true);

ALTER TABLE "cases" ADD COLUMN "redacted_at" TIMESTAMPTZ(3);
-- The cases a run may still have to redact, by resolution: the predicate is the eligibility query's
-- own (lib/services/retention/eligible-cases.ts), so a run never walks the cases already redacted.
CREATE INDEX "cases_retention_due_idx" ON "cases"("resolved_at")
  WHERE "state" = 'resolved' AND ("redacted_at" IS NULL OR "redacted_at" < "resolved_at");
-- The row and its sha256 stay (what was delivered); the file is gone from this time on.
ALTER TABLE "assets" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);

-- A redaction marker (never NULL: NOT of it must hold for any other value): exactly {"$redacted": "<reason>"} (lib/audit/canonical.ts redactedJson).
CREATE FUNCTION "audit_is_redaction_marker"(p JSONB) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE
  RETURN coalesce(jsonb_typeof(p) = 'object' AND jsonb_typeof(p -> '$redacted') = 'string'
     AND (SELECT count(*) FROM jsonb_object_keys(p)) = 1, false);

-- Rule 8 still holds for every role, the owner's included, with one exception: an UPDATE that
-- replaces before/after/evidence with a redaction marker and leaves every other column (digests,
-- hashes, seq, ids, times, kind, actor) as it was. The digests keep the chain verifiable.
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND (to_jsonb(NEW) - 'before' - 'after' - 'evidence') = (to_jsonb(OLD) - 'before' - 'after' - 'evidence')
     AND (NEW."before" IS NOT DISTINCT FROM OLD."before" OR audit_is_redaction_marker(NEW."before"))
     AND (NEW."after" IS NOT DISTINCT FROM OLD."after" OR audit_is_redaction_marker(NEW."after"))
     AND (NEW."evidence" IS NOT DISTINCT FROM OLD."evidence" OR audit_is_redaction_marker(NEW."evidence")) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- The application's role has no UPDATE on audit_events; it redacts a resolved case's events
-- through this function, which runs as the owner and refuses a case that is not resolved or whose
-- retention period (its producer's policy, else the global one) has not passed.
-- Evidence (notes, reasons, provider text) is redacted on every event of the case; before/after
-- are facts (states, stages, amounts) and stay. A previous run's case_redacted record stays readable.
CREATE FUNCTION "audit_redact_case"(p_case_id UUID, p_reason TEXT) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  marker JSONB := jsonb_build_object('$redacted', p_reason);
  redacted INTEGER;
  v_resolved_at TIMESTAMPTZ;
  v_days INTEGER;
BEGIN
  IF p_reason IS NULL OR length(p_reason) = 0 THEN
    RAISE EXCEPTION 'a redaction needs a reason' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT c."resolved_at", CASE WHEN p."scope" IS NOT NULL THEN p."days" ELSE g."days" END
    INTO v_resolved_at, v_days
    FROM "cases" c
    LEFT JOIN "retention_policies" p ON p."scope" = c."producer"
    LEFT JOIN "retention_policies" g ON g."scope" = '*'
   WHERE c."id" = p_case_id AND c."state" = 'resolved';
  IF v_resolved_at IS NULL THEN
    RAISE EXCEPTION 'case % is not resolved: its audit text is not redacted', p_case_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  -- Defence in depth: even the app's own role cannot wipe a case's history before its policy allows.
  IF v_days IS NULL OR v_resolved_at > now() - make_interval(days => v_days) THEN
    RAISE EXCEPTION 'case % is within its retention period: its audit text is not redacted', p_case_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  UPDATE "audit_events" SET "evidence" = marker
   WHERE "case_id" = p_case_id AND "kind" <> 'case_redacted' AND "evidence" IS NOT NULL
     AND NOT audit_is_redaction_marker("evidence");
  GET DIAGNOSTICS redacted = ROW_COUNT;
  RETURN redacted;
END;
$$;
