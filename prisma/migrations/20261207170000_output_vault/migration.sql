-- Decision 075: the output vault. When the product learns a job completed and no open case of its
-- operation will copy the outputs, it copies them into its own storage under the operation, within
-- the provider's retention, so a case opened later never finds them gone.

-- One row per output of an attempt: the intent (committed first, with the URL to fetch and the
-- provider's expiry), then what became of it (copied, with its key and digest; or missed, with the
-- reason; or removed once kept long enough). The worker leases a pending row by moving
-- next_attempt_at ahead and bumping claim_token; only the holder of the latest token may finish it.
CREATE TABLE "vault_copies" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "operation_ref" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "output_index" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "url" TEXT,
    "content_type" TEXT,
    "declared_bytes" BIGINT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "missed_reason" TEXT,
    "storage_key" TEXT,
    "sha256" TEXT,
    "stored_bytes" BIGINT,
    "copied_at" TIMESTAMPTZ(3),
    "keep_until" TIMESTAMPTZ(3),
    "removed_at" TIMESTAMPTZ(3),
    "tries" INTEGER NOT NULL DEFAULT 0,
    "claim_token" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vault_copies_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "vault_copies_status" CHECK ("status" IN ('pending', 'copied', 'missed', 'removed'))
);

CREATE UNIQUE INDEX "vault_copies_attempt_ref_output_index_key" ON "vault_copies"("attempt_ref", "output_index");
CREATE UNIQUE INDEX "vault_copies_storage_key_key" ON "vault_copies"("storage_key");
CREATE INDEX "vault_copies_status_next_attempt_at_idx" ON "vault_copies"("status", "next_attempt_at");
CREATE INDEX "vault_copies_operation_ref_idx" ON "vault_copies"("operation_ref");

ALTER TABLE "vault_copies" ADD CONSTRAINT "vault_copies_operation_ref_fkey" FOREIGN KEY ("operation_ref") REFERENCES "operations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "vault_copies" ADD CONSTRAINT "vault_copies_attempt_ref_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
