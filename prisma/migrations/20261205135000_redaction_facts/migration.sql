-- Redaction facts (docs/decisions/052-redaction-facts.md). audit_redact_case judged a case by
-- cases.state, cases.resolved_at and retention_policies, all of which the app's role writes: as that
-- role, one transaction could mark an open case resolved in the past, add a one-day policy, redact,
-- and put both back. The definer functions now judge by copies only the owner writes: each case's
-- resolution as its hash-chained audit events record it (timed by the database's clock, never by a
-- column the caller fills), and every policy change as a logged row with its time. The reason text
-- is the policy's, and each redaction is recorded where `npm run audit:verify` can check it.

-- One row per case: its last state-bearing audit event (after carries stage and state) and, while
-- that says resolved, when the chain first said so in a row. Written only by the trigger below.
CREATE TABLE "case_resolution_facts" (
    "case_id" UUID NOT NULL,
    "resolved" BOOLEAN NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "event_seq" INTEGER NOT NULL,

    CONSTRAINT "case_resolution_facts_pkey" PRIMARY KEY ("case_id"),
    CONSTRAINT "case_resolution_facts_resolved_at" CHECK ("resolved" = ("resolved_at" IS NOT NULL))
);

-- Every change to retention_policies, as the trigger below saw it, with the database's time.
-- dropped: the scope's own row went (a producer back under the global policy).
CREATE TABLE "retention_policy_log" (
    "id" BIGSERIAL NOT NULL,
    "scope" TEXT NOT NULL,
    "days" INTEGER,
    "dropped" BOOLEAN NOT NULL DEFAULT false,
    "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retention_policy_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "retention_policy_log_scope_idx" ON "retention_policy_log"("scope", "id");

-- Each redaction the definer functions made: which chain, up to which event, on which facts.
-- The verifier accepts a redaction marker only where such a row covers it and justifies it.
CREATE TABLE "audit_redactions" (
    "id" BIGSERIAL NOT NULL,
    "case_id" UUID,
    "producer" TEXT,
    "operation_id" TEXT,
    "through_seq" INTEGER NOT NULL,
    "resolution_seq" INTEGER,
    "since_at" TIMESTAMPTZ(3) NOT NULL,
    "days" INTEGER NOT NULL,
    "policy_log_id" BIGINT,
    "reason" TEXT NOT NULL,
    "redacted" INTEGER NOT NULL,
    "redacted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_redactions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "audit_redactions_case_id_idx" ON "audit_redactions"("case_id", "through_seq");

-- Runs as the owner after each audit append; what the caller put in created_at plays no part.
CREATE FUNCTION "case_resolution_facts_record"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_resolved BOOLEAN;
BEGIN
  IF NEW."case_id" IS NULL OR jsonb_typeof(NEW."after") IS DISTINCT FROM 'object'
     OR NOT (NEW."after" ? 'stage' AND NEW."after" ? 'state') THEN
    RETURN NULL;
  END IF;
  v_resolved := coalesce(NEW."after" ->> 'state' = 'resolved', false);
  INSERT INTO "case_resolution_facts" AS f ("case_id", "resolved", "resolved_at", "event_seq")
  VALUES (NEW."case_id", v_resolved, CASE WHEN v_resolved THEN now() END, NEW."chain_seq")
  ON CONFLICT ("case_id") DO UPDATE SET
    "resolved" = EXCLUDED."resolved",
    -- A note on a resolved case restates its state: the resolution keeps its first time.
    "resolved_at" = CASE WHEN NOT EXCLUDED."resolved" THEN NULL
                         WHEN f."resolved" THEN f."resolved_at" ELSE EXCLUDED."resolved_at" END,
    "event_seq" = EXCLUDED."event_seq";
  RETURN NULL;
END;
$$;
CREATE TRIGGER "audit_events_resolution_facts" AFTER INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "case_resolution_facts_record"();

CREATE FUNCTION "retention_policy_log_record"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND (TG_OP = 'DELETE' OR OLD."scope" <> NEW."scope") THEN
    INSERT INTO "retention_policy_log" ("scope", "days", "dropped") VALUES (OLD."scope", NULL, true);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "retention_policy_log" ("scope", "days") VALUES (NEW."scope", NEW."days");
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER "retention_policies_log" AFTER INSERT OR UPDATE OR DELETE ON "retention_policies"
  FOR EACH ROW EXECUTE FUNCTION "retention_policy_log_record"();

-- Backfill, as the owner: the policies as they stand, and each case's facts from its own chain
-- (the time of an existing resolution is its event's; every later one is the trigger's clock).
INSERT INTO "retention_policy_log" ("scope", "days", "recorded_at")
  SELECT "scope", "days", least("updated_at", now()) FROM "retention_policies" ORDER BY "updated_at", "scope";
INSERT INTO "case_resolution_facts" ("case_id", "resolved", "resolved_at", "event_seq")
  SELECT l."case_id", l."after" ->> 'state' = 'resolved',
         CASE WHEN l."after" ->> 'state' = 'resolved' THEN coalesce((
           SELECT min(r."created_at") FROM "audit_events" r
            WHERE r."case_id" = l."case_id" AND r."chain_seq" <= l."chain_seq"
              AND r."after" ? 'state' AND r."after" ? 'stage'
              AND r."chain_seq" > coalesce((
                SELECT max(o."chain_seq") FROM "audit_events" o
                 WHERE o."case_id" = l."case_id" AND o."after" ? 'state' AND o."after" ? 'stage'
                   AND o."after" ->> 'state' <> 'resolved'), 0)), l."created_at") END,
         l."chain_seq"
    FROM (SELECT DISTINCT ON ("case_id") "case_id", "after", "chain_seq", "created_at" FROM "audit_events"
           WHERE "case_id" IS NOT NULL AND jsonb_typeof("after") = 'object' AND "after" ? 'stage' AND "after" ? 'state'
           ORDER BY "case_id", "chain_seq" DESC) l;

-- The policy in force for a producer: its own latest logged row unless dropped, else the global
-- one's; NULL is off. The log id says which row decided it.
CREATE FUNCTION "retention_policy_in_force"(p_producer TEXT, OUT days INTEGER, OUT log_id BIGINT)
  LANGUAGE sql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
  SELECT CASE WHEN own."id" IS NOT NULL AND NOT own."dropped" THEN own."days"
              WHEN glob."dropped" THEN NULL ELSE glob."days" END,
         CASE WHEN own."id" IS NOT NULL AND NOT own."dropped" THEN own."id" ELSE glob."id" END
    FROM (SELECT 1) one
    LEFT JOIN LATERAL (SELECT l."id", l."days", l."dropped" FROM "retention_policy_log" l
                        WHERE l."scope" = p_producer ORDER BY l."id" DESC LIMIT 1) own ON true
    LEFT JOIN LATERAL (SELECT l."id", l."days", l."dropped" FROM "retention_policy_log" l
                        WHERE l."scope" = '*' ORDER BY l."id" DESC LIMIT 1) glob ON true
$$;

-- The reason every redaction writes: the policy's, never the caller's (lib/domain/retention.ts
-- retentionReason spells the same words).
CREATE FUNCTION "retention_reason"(p_days INTEGER, p_at TIMESTAMPTZ) RETURNS TEXT LANGUAGE sql IMMUTABLE
  RETURN 'retention policy: ' || p_days::text || ' days after resolution, '
    || to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD');

-- The case check, now on the owner's facts: the chain's last state-bearing event says resolved,
-- that resolution is older than the policy in force, by the database's clock. cases.state must
-- say resolved too (both, never either). Returns what the redaction row records.
DROP FUNCTION "retention_require_due"(UUID, TEXT);
CREATE FUNCTION "retention_require_due"(p_case_id UUID, p_what TEXT,
  OUT resolved_at TIMESTAMPTZ, OUT resolution_seq INTEGER, OUT days INTEGER, OUT log_id BIGINT)
  LANGUAGE plpgsql STABLE SET search_path = pg_catalog, public, pg_temp AS $$
BEGIN
  SELECT f."resolved_at", f."event_seq", p."days", p."log_id"
    INTO resolved_at, resolution_seq, days, log_id
    FROM "case_resolution_facts" f
    JOIN "cases" c ON c."id" = f."case_id" AND c."state" = 'resolved'
    CROSS JOIN LATERAL retention_policy_in_force(c."producer") p
   WHERE f."case_id" = p_case_id AND f."resolved";
  IF resolved_at IS NULL THEN
    RAISE EXCEPTION 'case % is not resolved by its audit history: % is not redacted', p_case_id, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF days IS NULL OR resolved_at > now() - make_interval(days => days) THEN
    RAISE EXCEPTION 'case % is within its retention period: % is not redacted', p_case_id, p_what
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END;
$$;

CREATE OR REPLACE FUNCTION "ledger_redact_case_notes"(p_case_id UUID) RETURNS INTEGER LANGUAGE plpgsql
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

-- The caller's reason is gone with the two-argument form: the app cannot call it any more.
DROP FUNCTION "audit_redact_case"(UUID, TEXT);
CREATE FUNCTION "audit_redact_case"(p_case_id UUID, OUT redacted INTEGER, OUT reason TEXT)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  due RECORD;
  v_through INTEGER;
BEGIN
  SELECT * INTO due FROM retention_require_due(p_case_id, 'its audit text');
  reason := retention_reason(due.days, now());
  -- The chain's head lock: no event joins the chain between the redaction and its record.
  SELECT h."seq" INTO v_through FROM "audit_chain_heads" h WHERE h."chain_key" = p_case_id::text FOR UPDATE;
  UPDATE "audit_events" SET "evidence" = jsonb_build_object('$redacted', reason)
   WHERE "case_id" = p_case_id AND "kind" <> 'case_redacted' AND "evidence" IS NOT NULL
     AND NOT audit_is_redaction_marker("evidence");
  GET DIAGNOSTICS redacted = ROW_COUNT;
  INSERT INTO "audit_redactions" ("case_id", "through_seq", "resolution_seq", "since_at", "days", "policy_log_id", "reason", "redacted")
  VALUES (p_case_id, coalesce(v_through, 0), due.resolution_seq, due.resolved_at, due.days, due.log_id, reason, redacted);
END;
$$;

-- Operations without a case: the policy in force from the log, the reason the policy's, and a
-- redaction row naming the operation as its permit events do.
CREATE OR REPLACE FUNCTION "retention_require_operation_due"(p_operation_ref UUID, p_what TEXT) RETURNS void
  LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_last TIMESTAMPTZ;
  v_days INTEGER;
BEGIN
  SELECT greatest(o."created_at", max(s."created_at"), max(s."reported_at")), (retention_policy_in_force(o."producer")).days
    INTO v_last, v_days
    FROM "operations" o
    LEFT JOIN "send_permits" s ON s."operation_ref" = o."id"
   WHERE o."id" = p_operation_ref
   GROUP BY o."id", o."created_at", o."producer";
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

DROP FUNCTION "audit_redact_operation"(UUID, TEXT);
CREATE FUNCTION "audit_redact_operation"(p_operation_ref UUID, OUT redacted INTEGER, OUT reason TEXT)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_producer TEXT;
  v_operation_id TEXT;
  v_created TIMESTAMPTZ;
  v_last TIMESTAMPTZ;
  v_days INTEGER;
  v_log BIGINT;
  v_through INTEGER;
BEGIN
  PERFORM retention_require_operation_due(p_operation_ref, 'its audit text');
  SELECT o."producer", o."operation_id", o."created_at", p."days", p."log_id"
    INTO v_producer, v_operation_id, v_created, v_days, v_log
    FROM "operations" o CROSS JOIN LATERAL retention_policy_in_force(o."producer") p
   WHERE o."id" = p_operation_ref;
  SELECT greatest(v_created, max(s."created_at"), max(s."reported_at")) INTO v_last
    FROM "send_permits" s WHERE s."operation_ref" = p_operation_ref;
  reason := retention_reason(v_days, now());
  SELECT h."seq" INTO v_through FROM "audit_chain_heads" h WHERE h."chain_key" = 'system' FOR UPDATE;
  UPDATE "audit_events" SET "evidence" = jsonb_build_object('$redacted', reason)
   WHERE "case_id" IS NULL AND "kind" LIKE 'permit\_%' AND "created_at" >= v_created
     AND "after" ->> 'producer' = v_producer AND "after" ->> 'operationId' = v_operation_id
     AND "evidence" IS NOT NULL AND NOT audit_is_redaction_marker("evidence");
  GET DIAGNOSTICS redacted = ROW_COUNT;
  INSERT INTO "audit_redactions" ("producer", "operation_id", "through_seq", "since_at", "days", "policy_log_id", "reason", "redacted")
  VALUES (v_producer, v_operation_id, coalesce(v_through, 0), coalesce(v_last, v_created), v_days, v_log, reason, redacted);
END;
$$;
