-- Rule 15: audit rows are hash-chained, so that even the owner's edits are detectable (decision 015).
--
-- One chain per case (events without a case form the "system" chain), so appends to different
-- cases never wait for each other. Each event stores its position, the hash of its predecessor
-- and its own hash over a canonical content string in which free text (the actor's label and the
-- before/after/evidence JSON) enters as its own SHA-256 digest: a retention policy may later replace
-- such text with a redaction marker and keep the digest, and the chain still verifies.
-- `npm run audit:verify` recomputes every hash in TypeScript; it never calls the functions below.

ALTER TABLE "audit_events"
  ADD COLUMN "chain_seq" INTEGER,
  ADD COLUMN "prev_hash" BYTEA,
  ADD COLUMN "hash" BYTEA,
  ADD COLUMN "actor_label_digest" BYTEA,
  ADD COLUMN "before_digest" BYTEA,
  ADD COLUMN "after_digest" BYTEA,
  ADD COLUMN "evidence_digest" BYTEA;

-- The last link of every chain. An append locks its chain's row (one case at a time, no global
-- hot spot); the verifier compares it with the chain, so deleting the last event shows too.
CREATE TABLE "audit_chain_heads" (
    "chain_key" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "hash" BYTEA NOT NULL,

    CONSTRAINT "audit_chain_heads_pkey" PRIMARY KEY ("chain_key")
);

-- The canonical content, version 1 (decision 015 spells it out; lib/audit/canonical.ts is the
-- verifier's own copy). One `name=value` line per field, in this order, each ending in "\n":
-- integers in decimal, the case id as lowercase UUID text or "system", hashes and digests in
-- lowercase hex (empty for a NULL field), the creation time as microseconds since the epoch (no
-- time zone enters), and the two short texts kept in clear (actor id, kind) as
-- "<UTF-8 byte length>:<text>" ("-" for NULL), so no value can pose as another line.
-- SQL-standard bodies: parsed and bound when created, so no caller's search_path can change what
-- they call, and simple enough for PostgreSQL to inline into the trigger's expressions.
CREATE FUNCTION "audit_chain_content"(
  p_id BIGINT, p_case_id UUID, p_seq INTEGER, p_prev_hash BYTEA, p_episode INTEGER, p_actor_kind TEXT,
  p_actor_id TEXT, p_actor_label_digest BYTEA, p_kind TEXT, p_before_digest BYTEA, p_after_digest BYTEA,
  p_evidence_digest BYTEA, p_created_at TIMESTAMPTZ
) RETURNS TEXT LANGUAGE sql STABLE
  RETURN 'audit-chain-v1' || E'\n'
    || 'id=' || p_id::text || E'\n'
    || 'chain=' || coalesce(p_case_id::text, 'system') || E'\n'
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

-- Free text's digest: SHA-256 of its UTF-8 bytes; JSON as PostgreSQL renders jsonb (keys sorted,
-- one spacing), which is what any reader of the column gets back.
CREATE FUNCTION "audit_chain_digest"(p_text TEXT) RETURNS BYTEA LANGUAGE sql IMMUTABLE
  RETURN CASE WHEN p_text IS NULL THEN NULL ELSE sha256(convert_to(p_text, 'UTF8')) END;

-- Runs as the owner (SECURITY DEFINER) so the application's role needs no write access to the
-- heads, and with a fixed search_path so nothing the caller puts on its path can stand in for a
-- table or function used here. Whatever the caller sent for the chain columns is overwritten.
CREATE FUNCTION "audit_events_chain"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp AS $$
DECLARE
  chain TEXT := coalesce(NEW."case_id"::text, 'system');
  head_seq INTEGER;
  head_hash BYTEA;
BEGIN
  -- The row lock on the chain's head serialises appends to one chain until this transaction ends.
  SELECT h."seq", h."hash" INTO head_seq, head_hash FROM "audit_chain_heads" h WHERE h."chain_key" = chain FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO "audit_chain_heads" ("chain_key", "seq", "hash") VALUES (chain, 0, decode(repeat('00', 32), 'hex'))
      ON CONFLICT ("chain_key") DO NOTHING;
    SELECT h."seq", h."hash" INTO STRICT head_seq, head_hash FROM "audit_chain_heads" h WHERE h."chain_key" = chain FOR UPDATE;
  END IF;
  NEW."chain_seq" := head_seq + 1;
  NEW."prev_hash" := head_hash;
  NEW."actor_label_digest" := audit_chain_digest(NEW."actor_label");
  NEW."before_digest" := audit_chain_digest(NEW."before"::text);
  NEW."after_digest" := audit_chain_digest(NEW."after"::text);
  NEW."evidence_digest" := audit_chain_digest(NEW."evidence"::text);
  NEW."hash" := sha256(convert_to(audit_chain_content(
    NEW."id", NEW."case_id", NEW."chain_seq", NEW."prev_hash", NEW."episode", NEW."actor_kind"::text,
    NEW."actor_id", NEW."actor_label_digest", NEW."kind", NEW."before_digest", NEW."after_digest",
    NEW."evidence_digest", NEW."created_at"), 'UTF8'));
  UPDATE "audit_chain_heads" SET "seq" = NEW."chain_seq", "hash" = NEW."hash" WHERE "chain_key" = chain;
  RETURN NEW;
END;
$$;

-- Backfill: chain the rows already there in (case, id) order, the system chain last. The
-- append-only trigger is set aside for this one statement's duration inside the migration's
-- transaction (the migration runs as the owner) and is back before the transaction commits.
ALTER TABLE "audit_events" DISABLE TRIGGER "audit_events_no_update_delete";
DO $$
DECLARE
  e RECORD;
  v_chain TEXT;
  v_last_chain TEXT := NULL;
  v_seq INTEGER := 0;
  v_prev BYTEA;
  v_zero BYTEA := decode(repeat('00', 32), 'hex');
  v_label BYTEA;
  v_before BYTEA;
  v_after BYTEA;
  v_evidence BYTEA;
  v_hash BYTEA;
BEGIN
  FOR e IN SELECT * FROM "audit_events" ORDER BY "case_id" NULLS LAST, "id" LOOP
    v_chain := coalesce(e."case_id"::text, 'system');
    IF v_last_chain IS DISTINCT FROM v_chain THEN
      IF v_last_chain IS NOT NULL THEN
        INSERT INTO "audit_chain_heads" ("chain_key", "seq", "hash") VALUES (v_last_chain, v_seq, v_prev);
      END IF;
      v_last_chain := v_chain;
      v_seq := 0;
      v_prev := v_zero;
    END IF;
    v_seq := v_seq + 1;
    v_label := audit_chain_digest(e."actor_label");
    v_before := audit_chain_digest(e."before"::text);
    v_after := audit_chain_digest(e."after"::text);
    v_evidence := audit_chain_digest(e."evidence"::text);
    v_hash := sha256(convert_to(audit_chain_content(
      e."id", e."case_id", v_seq, v_prev, e."episode", e."actor_kind"::text, e."actor_id", v_label, e."kind",
      v_before, v_after, v_evidence, e."created_at"), 'UTF8'));
    UPDATE "audit_events" SET "chain_seq" = v_seq, "prev_hash" = v_prev, "hash" = v_hash,
      "actor_label_digest" = v_label, "before_digest" = v_before, "after_digest" = v_after,
      "evidence_digest" = v_evidence
    WHERE "id" = e."id";
    v_prev := v_hash;
  END LOOP;
  IF v_last_chain IS NOT NULL THEN
    INSERT INTO "audit_chain_heads" ("chain_key", "seq", "hash") VALUES (v_last_chain, v_seq, v_prev);
  END IF;
END;
$$;
ALTER TABLE "audit_events" ENABLE TRIGGER "audit_events_no_update_delete";

ALTER TABLE "audit_events"
  ALTER COLUMN "chain_seq" SET NOT NULL,
  ALTER COLUMN "prev_hash" SET NOT NULL,
  ALTER COLUMN "hash" SET NOT NULL,
  ALTER COLUMN "actor_label_digest" SET NOT NULL;

-- One event per position in each chain; the system chain's NULL case counts as one key (PG 15+).
CREATE UNIQUE INDEX "audit_events_case_id_chain_seq_key" ON "audit_events"("case_id", "chain_seq") NULLS NOT DISTINCT;

CREATE TRIGGER "audit_events_chain" BEFORE INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_chain"();
