-- CreateEnum
CREATE TYPE "Stage" AS ENUM ('submission_uncertain', 'polling', 'delivery', 'generation_failed');
CREATE TYPE "CaseState" AS ENUM ('parked', 'ready', 'claimed', 'resolved');
CREATE TYPE "AttemptKind" AS ENUM ('original', 'replacement');
CREATE TYPE "RecoveryActionKind" AS ENUM ('resume_poll', 'retry_delivery');
CREATE TYPE "ActionStatus" AS ENUM ('ready', 'claimed', 'succeeded', 'unresolved', 'superseded');
CREATE TYPE "HoldStatus" AS ENUM ('held', 'settled', 'released');
CREATE TYPE "LedgerEntryKind" AS ENUM ('reserve', 'settle', 'release', 'overage');
CREATE TYPE "ReplacementStatus" AS ENUM ('pending', 'authorized', 'declined', 'expired');
CREATE TYPE "TokenKind" AS ENUM ('api_key', 'worker', 'personal');
CREATE TYPE "ActorKind" AS ENUM ('user', 'api_key', 'worker', 'system');

-- CreateTable
CREATE TABLE "access_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" "TokenKind" NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "access_tokens_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "access_tokens_personal_has_user" CHECK ("kind" <> 'personal' OR "user_id" IS NOT NULL),
    CONSTRAINT "access_tokens_hash_is_sha256" CHECK ("token_hash" ~ '^[0-9a-f]{64}$')
);

-- CreateTable
CREATE TABLE "operations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "producer" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "request_fingerprint" TEXT NOT NULL,
    "request_summary" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "operations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "operations_fingerprint_format" CHECK ("request_fingerprint" ~ '^sha256:[0-9a-f]{64}$')
);

-- CreateTable
CREATE TABLE "attempts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "operation_ref" UUID NOT NULL,
    "attempt_id" TEXT NOT NULL,
    "kind" "AttemptKind" NOT NULL,
    "replaces_attempt_id" UUID,
    "provider_job_id" TEXT,
    "submitted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("id"),
    -- A replacement always names the attempt it replaces; an original never does.
    CONSTRAINT "attempts_replacement_linked" CHECK (("kind" = 'replacement') = ("replaces_attempt_id" IS NOT NULL))
);

-- CreateTable
CREATE TABLE "cases" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "operation_ref" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "producer" TEXT NOT NULL,
    "operation_id" TEXT NOT NULL,
    "attempt_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "stage" "Stage" NOT NULL,
    "state" "CaseState" NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "episode" INTEGER NOT NULL DEFAULT 1,
    "provider_job_id" TEXT,
    "registered_stage" "Stage" NOT NULL,
    "registered_job_id" TEXT,
    "registered_fingerprint" TEXT NOT NULL,
    "held_micros" BIGINT NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "assignee_id" UUID,
    "last_evidence" JSONB NOT NULL,
    "poll_attempts" INTEGER NOT NULL DEFAULT 0,
    "delivery_attempts" INTEGER NOT NULL DEFAULT 0,
    "submitted_at" TIMESTAMPTZ(3),
    "retry_deadline" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "opened_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "cases_pkey" PRIMARY KEY ("id"),
    -- Polling and delivery are about a known provider job; without one they would invite a new create.
    CONSTRAINT "cases_known_job_stages_have_job" CHECK ("stage" NOT IN ('polling', 'delivery') OR "provider_job_id" IS NOT NULL),
    CONSTRAINT "cases_held_not_negative" CHECK ("held_micros" >= 0),
    CONSTRAINT "cases_version_positive" CHECK ("version" > 0 AND "episode" > 0),
    CONSTRAINT "cases_currency_code" CHECK ("currency" ~ '^[A-Z]{3}$')
);

-- CreateTable
CREATE TABLE "decisions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "episode" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "action_kind" "RecoveryActionKind",
    "reviewer_id" UUID NOT NULL,
    "evidence" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "decisions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "decisions_evidence_present" CHECK (length(btrim("evidence")) > 0)
);

-- CreateTable
CREATE TABLE "recovery_actions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "decision_id" UUID NOT NULL,
    "kind" "RecoveryActionKind" NOT NULL,
    "status" "ActionStatus" NOT NULL DEFAULT 'ready',
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "fencing_token" BIGINT NOT NULL DEFAULT 0,
    "claim_count" INTEGER NOT NULL DEFAULT 0,
    "outcome" TEXT,
    "ready_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "recovery_actions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "recovery_actions_claim_has_lease" CHECK ("status" <> 'claimed' OR ("lease_owner" IS NOT NULL AND "lease_until" IS NOT NULL)),
    CONSTRAINT "recovery_actions_token_not_negative" CHECK ("fencing_token" >= 0)
);

-- CreateTable
CREATE TABLE "holds" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "hold_id" TEXT NOT NULL,
    "producer" TEXT NOT NULL,
    "case_id" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" "HoldStatus" NOT NULL DEFAULT 'held',
    "settled_micros" BIGINT NOT NULL DEFAULT 0,
    "released_micros" BIGINT NOT NULL DEFAULT 0,
    "decided_by_id" UUID,
    "decision_note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "holds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "holds_amount_positive" CHECK ("amount_micros" > 0),
    CONSTRAINT "holds_currency_code" CHECK ("currency" ~ '^[A-Z]{3}$'),
    -- held: nothing moved yet; resolved: every reserved micro is either settled or released.
    CONSTRAINT "holds_balance" CHECK (
      "settled_micros" >= 0 AND "released_micros" >= 0 AND
      CASE WHEN "status" = 'held' THEN "settled_micros" = 0 AND "released_micros" = 0 AND "resolved_at" IS NULL
           ELSE "settled_micros" + "released_micros" = "amount_micros" AND "resolved_at" IS NOT NULL END
    )
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "hold_ref" UUID NOT NULL,
    "kind" "LedgerEntryKind" NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "flagged" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT,
    "actor_label" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ledger_entries_amount_positive" CHECK ("amount_micros" > 0),
    CONSTRAINT "ledger_entries_only_overage_flagged" CHECK ("flagged" = ("kind" = 'overage'))
);

-- CreateTable
CREATE TABLE "replacement_requests" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "original_attempt_ref" UUID NOT NULL,
    "requested_by_id" UUID NOT NULL,
    "evidence" TEXT NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "status" "ReplacementStatus" NOT NULL DEFAULT 'pending',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by_id" UUID,
    "decided_at" TIMESTAMPTZ(3),
    "new_attempt_ref" UUID,
    "acknowledged_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "replacement_requests_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "replacement_requests_amount_positive" CHECK ("amount_micros" > 0),
    -- Four-eyes, once more at the bottom: the authoriser is never the requester.
    CONSTRAINT "replacement_requests_four_eyes" CHECK ("decided_by_id" IS NULL OR "decided_by_id" <> "requested_by_id"),
    CONSTRAINT "replacement_requests_authorized_has_attempt" CHECK (("status" = 'authorized') = ("new_attempt_ref" IS NOT NULL))
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "case_id" UUID,
    "episode" INTEGER,
    "actor_kind" "ActorKind" NOT NULL,
    "actor_id" TEXT,
    "actor_label" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "evidence" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "access_tokens_token_hash_key" ON "access_tokens"("token_hash");
CREATE INDEX "access_tokens_kind_name_idx" ON "access_tokens"("kind", "name");
CREATE INDEX "access_tokens_user_id_idx" ON "access_tokens"("user_id");
CREATE UNIQUE INDEX "operations_producer_operation_id_key" ON "operations"("producer", "operation_id");
CREATE INDEX "operations_operation_id_idx" ON "operations"("operation_id");
CREATE UNIQUE INDEX "attempts_operation_ref_attempt_id_key" ON "attempts"("operation_ref", "attempt_id");
CREATE INDEX "attempts_attempt_id_idx" ON "attempts"("attempt_id");
CREATE INDEX "attempts_provider_job_id_idx" ON "attempts"("provider_job_id");
CREATE UNIQUE INDEX "cases_operation_ref_key" ON "cases"("operation_ref");
CREATE INDEX "cases_opened_at_id_idx" ON "cases"("opened_at", "id");
CREATE INDEX "cases_held_micros_id_idx" ON "cases"("held_micros", "id");
CREATE INDEX "cases_stage_state_opened_at_idx" ON "cases"("stage", "state", "opened_at");
CREATE INDEX "cases_provider_job_id_idx" ON "cases"("provider_job_id");
CREATE INDEX "cases_attempt_id_idx" ON "cases"("attempt_id");
CREATE INDEX "cases_operation_id_idx" ON "cases"("operation_id");
CREATE INDEX "cases_assignee_id_idx" ON "cases"("assignee_id");
CREATE INDEX "decisions_case_id_created_at_idx" ON "decisions"("case_id", "created_at");
CREATE UNIQUE INDEX "recovery_actions_decision_id_key" ON "recovery_actions"("decision_id");
CREATE INDEX "recovery_actions_case_id_idx" ON "recovery_actions"("case_id");
CREATE UNIQUE INDEX "holds_attempt_ref_key" ON "holds"("attempt_ref");
CREATE UNIQUE INDEX "holds_producer_hold_id_key" ON "holds"("producer", "hold_id");
CREATE INDEX "holds_status_created_at_idx" ON "holds"("status", "created_at");
CREATE INDEX "holds_case_id_idx" ON "holds"("case_id");
CREATE UNIQUE INDEX "ledger_entries_hold_ref_kind_key" ON "ledger_entries"("hold_ref", "kind");
CREATE INDEX "ledger_entries_created_at_idx" ON "ledger_entries"("created_at");
CREATE UNIQUE INDEX "replacement_requests_new_attempt_ref_key" ON "replacement_requests"("new_attempt_ref");
CREATE INDEX "replacement_requests_status_created_at_idx" ON "replacement_requests"("status", "created_at");
CREATE INDEX "replacement_requests_case_id_idx" ON "replacement_requests"("case_id");
CREATE INDEX "audit_events_case_id_id_idx" ON "audit_events"("case_id", "id");
CREATE INDEX "audit_events_kind_created_at_idx" ON "audit_events"("kind", "created_at");

-- Rule 3: at most one live action per case, whatever races the approvals.
CREATE UNIQUE INDEX "recovery_actions_one_live_per_case" ON "recovery_actions"("case_id") WHERE "status" IN ('ready', 'claimed');
-- The claim query's access paths: ready work in order, and leases that may have expired.
CREATE INDEX "recovery_actions_ready_queue" ON "recovery_actions"("ready_at", "id") WHERE "status" = 'ready';
CREATE INDEX "recovery_actions_leases" ON "recovery_actions"("lease_until") WHERE "status" = 'claimed';
-- Only one replacement may be awaiting authorisation per case.
CREATE UNIQUE INDEX "replacement_requests_one_pending_per_case" ON "replacement_requests"("case_id") WHERE "status" = 'pending';

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_operation_ref_fkey" FOREIGN KEY ("operation_ref") REFERENCES "operations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_replaces_attempt_id_fkey" FOREIGN KEY ("replaces_attempt_id") REFERENCES "attempts"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "cases" ADD CONSTRAINT "cases_operation_ref_fkey" FOREIGN KEY ("operation_ref") REFERENCES "operations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "cases" ADD CONSTRAINT "cases_attempt_ref_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "cases" ADD CONSTRAINT "cases_assignee_id_fkey" FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "decisions" ADD CONSTRAINT "decisions_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "decisions" ADD CONSTRAINT "decisions_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "recovery_actions" ADD CONSTRAINT "recovery_actions_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "recovery_actions" ADD CONSTRAINT "recovery_actions_decision_id_fkey" FOREIGN KEY ("decision_id") REFERENCES "decisions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "holds" ADD CONSTRAINT "holds_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "holds" ADD CONSTRAINT "holds_attempt_ref_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_hold_ref_fkey" FOREIGN KEY ("hold_ref") REFERENCES "holds"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "replacement_requests" ADD CONSTRAINT "replacement_requests_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Rule 8: the audit log is append-only for every role, the application's included.
CREATE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER "audit_events_no_update_delete" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_append_only"();
