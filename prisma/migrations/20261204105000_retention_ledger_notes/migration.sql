-- Retention, amended (docs/decisions/033-retention.md, 2026-12-04): a ledger entry's note is
-- finance's free text, the same words as its hold's decision note, which retention redacts; kept
-- here, that text would outlive the policy. The entry itself (hold, kind, amount, actor, time) is a
-- fact and stays.

-- The ledger stays append-only for every role, the owner's included, with one exception like
-- audit_events': an UPDATE that replaces the note with the text marker (lib/audit/canonical.ts
-- REDACTED_LABEL) and leaves every other column as it was.
CREATE OR REPLACE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (to_jsonb(NEW) - 'note') = (to_jsonb(OLD) - 'note') AND NEW."note" = '[redacted]' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'ledger_entries is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- The check audit_redact_case made inline, shared with the ledger's redaction: the case is resolved
-- and its retention period (its producer's policy, else the global one) has passed by the
-- database's clock, so not even the app's own role can wipe a case's text early.
CREATE FUNCTION "retention_require_due"(p_case_id UUID, p_what TEXT) RETURNS void LANGUAGE plpgsql
  SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_resolved_at TIMESTAMPTZ;
  v_days INTEGER;
BEGIN
  SELECT c."resolved_at", CASE WHEN p."scope" IS NOT NULL THEN p."days" ELSE g."days" END
    INTO v_resolved_at, v_days
    FROM "cases" c
    LEFT JOIN "retention_policies" p ON p."scope" = c."producer"
    LEFT JOIN "retention_policies" g ON g."scope" = '*'
   WHERE c."id" = p_case_id AND c."state" = 'resolved';
  IF v_resolved_at IS NULL THEN
    RAISE EXCEPTION 'case % is not resolved: % is not redacted', p_case_id, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF v_days IS NULL OR v_resolved_at > now() - make_interval(days => v_days) THEN
    RAISE EXCEPTION 'case % is within its retention period: % is not redacted', p_case_id, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END;
$$;

CREATE OR REPLACE FUNCTION "audit_redact_case"(p_case_id UUID, p_reason TEXT) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  marker JSONB := jsonb_build_object('$redacted', p_reason);
  redacted INTEGER;
BEGIN
  IF p_reason IS NULL OR length(p_reason) = 0 THEN
    RAISE EXCEPTION 'a redaction needs a reason' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM retention_require_due(p_case_id, 'its audit text');
  UPDATE "audit_events" SET "evidence" = marker
   WHERE "case_id" = p_case_id AND "kind" <> 'case_redacted' AND "evidence" IS NOT NULL
     AND NOT audit_is_redaction_marker("evidence");
  GET DIAGNOSTICS redacted = ROW_COUNT;
  RETURN redacted;
END;
$$;

-- The application's role has no UPDATE on ledger_entries; it redacts a case's ledger notes through
-- this function, which runs as the owner and refuses what audit_redact_case refuses.
CREATE FUNCTION "ledger_redact_case_notes"(p_case_id UUID) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  redacted INTEGER;
BEGIN
  PERFORM retention_require_due(p_case_id, 'its ledger notes');
  UPDATE "ledger_entries" e SET "note" = '[redacted]'
    FROM "holds" h
   WHERE h."id" = e."hold_ref" AND h."case_id" = p_case_id AND e."note" IS NOT NULL AND e."note" <> '[redacted]';
  GET DIAGNOSTICS redacted = ROW_COUNT;
  RETURN redacted;
END;
$$;
