-- Every record has an end (DESIGN rule 20, docs/decisions/042-every-record-has-an-end.md): an
-- operation that went through a permit and never became a case kept its request summary, the
-- producer's permit reports and their audit text for ever. Such an operation is now redacted once
-- its permits are closed, its holds resolved, and its last activity is older than its producer's
-- policy (else the global one), by the same run that redacts cases.
ALTER TABLE "operations" ADD COLUMN "redacted_at" TIMESTAMPTZ(3);

-- The run looks only at operations never redacted; the oldest first.
CREATE INDEX "operations_retention_due_idx" ON "operations"("created_at") WHERE "redacted_at" IS NULL;

-- The check the definer functions below make, like retention_require_due for a case: the
-- operation has no case, every permit is closed (rejected, completed, failed or withdrawn), no
-- hold of its permits is still held, and its last activity is older than the policy by the
-- database's clock, so not even the app's own role can wipe an operation's text early.
CREATE FUNCTION "retention_require_operation_due"(p_operation_ref UUID, p_what TEXT) RETURNS void
  LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_last TIMESTAMPTZ;
  v_days INTEGER;
BEGIN
  SELECT greatest(o."created_at", max(s."created_at"), max(s."reported_at")),
         CASE WHEN p."scope" IS NOT NULL THEN p."days" ELSE g."days" END
    INTO v_last, v_days
    FROM "operations" o
    LEFT JOIN "send_permits" s ON s."operation_ref" = o."id"
    LEFT JOIN "retention_policies" p ON p."scope" = o."producer"
    LEFT JOIN "retention_policies" g ON g."scope" = '*'
   WHERE o."id" = p_operation_ref
   GROUP BY o."id", o."created_at", p."scope", p."days", g."days";
  IF v_last IS NULL THEN
    RAISE EXCEPTION 'operation % does not exist: % is not redacted', p_operation_ref, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF EXISTS (SELECT 1 FROM "cases" c WHERE c."operation_ref" = p_operation_ref) THEN
    RAISE EXCEPTION 'operation % has a case, redacted with it: % is not redacted here', p_operation_ref, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF EXISTS (SELECT 1 FROM "send_permits" s LEFT JOIN "holds" h ON h."id" = s."hold_ref"
              WHERE s."operation_ref" = p_operation_ref
                AND (s."status" IN ('live', 'accepted', 'uncertain') OR h."status" = 'held')) THEN
    RAISE EXCEPTION 'operation % is still open: % is not redacted', p_operation_ref, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF v_days IS NULL OR v_last > now() - make_interval(days => v_days) THEN
    RAISE EXCEPTION 'operation % is within its retention period: % is not redacted', p_operation_ref, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END;
$$;

-- A permit's audit events belong to no case (the system chain) and name their operation by the
-- producer and operation ID in "after"; their evidence (the producer's report) is redacted like a
-- case's, digests and hashes kept (decision 033).
CREATE FUNCTION "audit_redact_operation"(p_operation_ref UUID, p_reason TEXT) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  marker JSONB := jsonb_build_object('$redacted', p_reason);
  v_producer TEXT;
  v_operation_id TEXT;
  v_created TIMESTAMPTZ;
  redacted INTEGER;
BEGIN
  IF p_reason IS NULL OR length(p_reason) = 0 THEN
    RAISE EXCEPTION 'a redaction needs a reason' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM retention_require_operation_due(p_operation_ref, 'its audit text');
  SELECT "producer", "operation_id", "created_at" INTO v_producer, v_operation_id, v_created
    FROM "operations" WHERE "id" = p_operation_ref;
  UPDATE "audit_events" SET "evidence" = marker
   WHERE "case_id" IS NULL AND "kind" LIKE 'permit\_%' AND "created_at" >= v_created
     AND "after" ->> 'producer' = v_producer AND "after" ->> 'operationId' = v_operation_id
     AND "evidence" IS NOT NULL AND NOT audit_is_redaction_marker("evidence");
  GET DIAGNOSTICS redacted = ROW_COUNT;
  RETURN redacted;
END;
$$;

-- Finance's notes on the holds of an operation's permits, as ledger_redact_case_notes does for a case's.
CREATE FUNCTION "ledger_redact_operation_notes"(p_operation_ref UUID) RETURNS INTEGER LANGUAGE plpgsql
  SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  redacted INTEGER;
BEGIN
  PERFORM retention_require_operation_due(p_operation_ref, 'its ledger notes');
  UPDATE "ledger_entries" e SET "note" = '[redacted]'
    FROM "send_permits" s
   WHERE s."operation_ref" = p_operation_ref AND e."hold_ref" = s."hold_ref"
     AND e."note" IS NOT NULL AND e."note" <> '[redacted]';
  GET DIAGNOSTICS redacted = ROW_COUNT;
  RETURN redacted;
END;
$$;

-- Provider webhooks that matched no case and no permit end by the global policy on their own.
CREATE INDEX "provider_webhooks_loose_idx" ON "provider_webhooks"("received_at")
  WHERE "case_ref" IS NULL AND "permit_ref" IS NULL;
