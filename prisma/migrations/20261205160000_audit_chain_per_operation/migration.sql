-- Audit chains per operation (docs/decisions/059-audit-chain-per-operation.md). Events without a case
-- went on one "system" chain, whose head row every send permit, report and claim conflict locked until
-- its transaction committed: the gate in front of every paid call was serialised on one row. An event
-- that names its operation (`operation_ref`) and has no case now goes on that operation's own chain,
-- "operation:<uuid>"; the "system" chain keeps the events that belong to neither (people, keys,
-- settings). The canonical content is unchanged but for the chain's name, so every event written before
-- keeps its hash, and `npm run audit:verify` proves of each chain what it proved of the one.

ALTER TABLE "audit_events" ADD COLUMN "operation_ref" UUID;

-- One event per position in each chain: a case's, an operation's, or the system chain (NULLs as one key).
-- The trigger clears operation_ref on a case's event, so (case, NULL, seq) is the case's chain.
CREATE UNIQUE INDEX "audit_events_case_id_operation_ref_chain_seq_key"
  ON "audit_events"("case_id", "operation_ref", "chain_seq") NULLS NOT DISTINCT;
DROP INDEX "audit_events_case_id_chain_seq_key";

-- The head keeps the hash it replaced, so one UPDATE both advances the head and hands the trigger the
-- predecessor (RETURNING sees only new values before PostgreSQL 18).
ALTER TABLE "audit_chain_heads" ADD COLUMN "prev_hash" BYTEA;

-- Version 1 of the canonical content (decision 015) with the chain's name given: the case id, the
-- operation's "operation:<uuid>", or "system". The old signature stays for callers that name a case.
CREATE FUNCTION "audit_chain_link_content"(
  p_id BIGINT, p_chain TEXT, p_seq INTEGER, p_prev_hash BYTEA, p_episode INTEGER, p_actor_kind TEXT,
  p_actor_id TEXT, p_actor_label_digest BYTEA, p_kind TEXT, p_before_digest BYTEA, p_after_digest BYTEA,
  p_evidence_digest BYTEA, p_created_at TIMESTAMPTZ
) RETURNS TEXT LANGUAGE sql STABLE
  RETURN 'audit-chain-v1' || E'\n'
    || 'id=' || p_id::text || E'\n'
    || 'chain=' || p_chain || E'\n'
    || 'seq=' || p_seq::text || E'\n'
    || 'prev=' || encode(p_prev_hash, 'hex') || E'\n'
    || 'episode=' || coalesce(p_episode::text, '') || E'\n'
    || 'actor_kind=' || p_actor_kind || E'\n'
    || 'actor_id=' || CASE WHEN p_actor_id IS NULL THEN '-'
                           ELSE octet_length(convert_to(p_actor_id, 'UTF8'))::text || ':' || p_actor_id END || E'\n'
    || 'actor_label_sha256=' || encode(p_actor_label_digest, 'hex') || E'\n'
    || 'kind=' || octet_length(convert_to(p_kind, 'UTF8'))::text || ':' || p_kind || E'\n'
    || 'before_sha256=' || coalesce(encode(p_before_digest, 'hex'), '') || E'\n'
    || 'after_sha256=' || coalesce(encode(p_after_digest, 'hex'), '') || E'\n'
    || 'evidence_sha256=' || coalesce(encode(p_evidence_digest, 'hex'), '') || E'\n'
    || 'created_at_us=' || (extract(epoch FROM p_created_at) * 1000000)::bigint::text || E'\n';

CREATE OR REPLACE FUNCTION "audit_chain_content"(
  p_id BIGINT, p_case_id UUID, p_seq INTEGER, p_prev_hash BYTEA, p_episode INTEGER, p_actor_kind TEXT,
  p_actor_id TEXT, p_actor_label_digest BYTEA, p_kind TEXT, p_before_digest BYTEA, p_after_digest BYTEA,
  p_evidence_digest BYTEA, p_created_at TIMESTAMPTZ
) RETURNS TEXT LANGUAGE sql STABLE
  RETURN audit_chain_link_content(p_id, coalesce(p_case_id::text, 'system'), p_seq, p_prev_hash, p_episode,
    p_actor_kind, p_actor_id, p_actor_label_digest, p_kind, p_before_digest, p_after_digest, p_evidence_digest,
    p_created_at);

-- One statement per append on a chain that exists (the head's row lock, taken by the UPDATE, still
-- serialises appends to one chain until the transaction ends), two on a new chain (an UPDATE that finds
-- nothing, then the head's INSERT; a concurrent first append makes the INSERT conflict and the UPDATE
-- run again, now behind that append's lock).
CREATE OR REPLACE FUNCTION "audit_events_chain"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  chain TEXT;
  v_zero CONSTANT BYTEA := decode(repeat('00', 32), 'hex');
BEGIN
  IF NEW."case_id" IS NOT NULL THEN
    NEW."operation_ref" := NULL;
    chain := NEW."case_id"::text;
  ELSIF NEW."operation_ref" IS NOT NULL THEN
    chain := 'operation:' || NEW."operation_ref"::text;
  ELSE
    chain := 'system';
  END IF;
  NEW."actor_label_digest" := audit_chain_digest(NEW."actor_label");
  NEW."before_digest" := audit_chain_digest(NEW."before"::text);
  NEW."after_digest" := audit_chain_digest(NEW."after"::text);
  NEW."evidence_digest" := audit_chain_digest(NEW."evidence"::text);
  LOOP
    UPDATE "audit_chain_heads" h
       SET "seq" = h."seq" + 1, "prev_hash" = h."hash",
           "hash" = sha256(convert_to(audit_chain_link_content(
             NEW."id", chain, h."seq" + 1, h."hash", NEW."episode", NEW."actor_kind"::text, NEW."actor_id",
             NEW."actor_label_digest", NEW."kind", NEW."before_digest", NEW."after_digest",
             NEW."evidence_digest", NEW."created_at"), 'UTF8'))
     WHERE h."chain_key" = chain
     RETURNING h."seq", h."prev_hash", h."hash" INTO NEW."chain_seq", NEW."prev_hash", NEW."hash";
    EXIT WHEN FOUND;
    NEW."chain_seq" := 1;
    NEW."prev_hash" := v_zero;
    NEW."hash" := sha256(convert_to(audit_chain_link_content(
      NEW."id", chain, 1, v_zero, NEW."episode", NEW."actor_kind"::text, NEW."actor_id",
      NEW."actor_label_digest", NEW."kind", NEW."before_digest", NEW."after_digest",
      NEW."evidence_digest", NEW."created_at"), 'UTF8'));
    INSERT INTO "audit_chain_heads" ("chain_key", "seq", "hash", "prev_hash")
    VALUES (chain, 1, NEW."hash", v_zero)
    ON CONFLICT ("chain_key") DO NOTHING;
    EXIT WHEN FOUND;
  END LOOP;
  RETURN NEW;
END;
$$;

-- Redactions of an operation's permit events: through_seq is now a position in the operation's own
-- chain, and system_through_seq the system chain's head at the time, for the operation's events
-- written there before this migration. Rows already recorded were made on the system chain.
ALTER TABLE "audit_redactions" ADD COLUMN "operation_ref" UUID, ADD COLUMN "system_through_seq" INTEGER;
UPDATE "audit_redactions" SET "system_through_seq" = "through_seq" WHERE "case_id" IS NULL;

CREATE OR REPLACE FUNCTION "audit_redact_operation"(p_operation_ref UUID, OUT redacted INTEGER, OUT reason TEXT)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  v_producer TEXT;
  v_operation_id TEXT;
  v_created TIMESTAMPTZ;
  v_last TIMESTAMPTZ;
  v_days INTEGER;
  v_log BIGINT;
  v_through INTEGER;
  v_system_through INTEGER;
BEGIN
  PERFORM retention_require_operation_due(p_operation_ref, 'its audit text');
  SELECT o."producer", o."operation_id", o."created_at", p."days", p."log_id"
    INTO v_producer, v_operation_id, v_created, v_days, v_log
    FROM "operations" o CROSS JOIN LATERAL retention_policy_in_force(o."producer") p
   WHERE o."id" = p_operation_ref;
  SELECT greatest(v_created, max(s."created_at"), max(s."reported_at")) INTO v_last
    FROM "send_permits" s WHERE s."operation_ref" = p_operation_ref;
  reason := retention_reason(v_days, now());
  -- Both heads' locks: no event joins either chain between the redaction and its record.
  SELECT h."seq" INTO v_through FROM "audit_chain_heads" h
   WHERE h."chain_key" = 'operation:' || p_operation_ref::text FOR UPDATE;
  SELECT h."seq" INTO v_system_through FROM "audit_chain_heads" h WHERE h."chain_key" = 'system' FOR UPDATE;
  UPDATE "audit_events" SET "evidence" = jsonb_build_object('$redacted', reason)
   WHERE "case_id" IS NULL AND "evidence" IS NOT NULL AND NOT audit_is_redaction_marker("evidence")
     AND ("operation_ref" = p_operation_ref
          OR ("operation_ref" IS NULL AND "kind" LIKE 'permit\_%' AND "created_at" >= v_created
              AND "after" ->> 'producer' = v_producer AND "after" ->> 'operationId' = v_operation_id));
  GET DIAGNOSTICS redacted = ROW_COUNT;
  INSERT INTO "audit_redactions" ("producer", "operation_id", "operation_ref", "through_seq", "system_through_seq",
                                  "since_at", "days", "policy_log_id", "reason", "redacted")
  VALUES (v_producer, v_operation_id, p_operation_ref, coalesce(v_through, 0), coalesce(v_system_through, 0),
          coalesce(v_last, v_created), v_days, v_log, reason, redacted);
END;
$$;
