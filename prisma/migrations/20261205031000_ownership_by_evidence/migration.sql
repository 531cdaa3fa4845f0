-- Rule 17 (docs/decisions/038-ownership-by-evidence.md): who owns a provider job is decided by the
-- provider's evidence, never by who reported it first.

-- The signed reference a job was created with, as the provider showed it: the first verified webhook
-- carrying a reference on a job fixes the pair. One send creates one job, so a reference names one
-- job and a job carries one reference; a later webhook pairing either with another is a transplant.
CREATE TABLE "job_references" (
    "id" BIGSERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "webhook_ref" BIGINT,
    "bound_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "job_references_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "job_references_provider_provider_job_id_key" ON "job_references"("provider", "provider_job_id");
CREATE UNIQUE INDEX "job_references_attempt_ref_key" ON "job_references"("attempt_ref");

-- A claim on a job that met another operation's claim or the provider's evidence: what was decided
-- (the job taken from a bare claim, both left as they are for a reviewer, a transplanted reference
-- refused), with the evidence. Both operations' cases carry a `job_claim_contested` audit event.
CREATE TABLE "job_claim_conflicts" (
    "id" BIGSERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "door" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "claimant_attempt_ref" UUID NOT NULL,
    "holder_attempt_ref" UUID,
    "reason" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "job_claim_conflicts_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "job_claim_conflicts_job" ON "job_claim_conflicts"("provider", "provider_job_id");
