-- Provider webhooks as evidence (DESIGN 8): every verified webhook, once. The provider's own event
-- ID is the key, so a replay or a retry of the same event finds its row and changes nothing; the
-- row says what the webhook did (converged a case, answered a permit, attached a job, was only kept)
-- and, for a job no operation owns yet, waits to be matched.
CREATE TABLE "provider_webhooks" (
    "id" BIGSERIAL NOT NULL,
    "provider" TEXT NOT NULL,
    "webhook_id" TEXT NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "status_kind" TEXT NOT NULL,
    "provider_status" TEXT,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The operation the webhook URL's signed reference named, when it carried one that verified.
    "reference" JSONB,
    "outcome" TEXT NOT NULL,
    "note" TEXT,
    "case_ref" UUID,
    "permit_ref" UUID,
    -- The answer as a status check would record it, sanitised (no signed URL query strings).
    "detail" JSONB NOT NULL,
    -- What reconciliation can match an unowned job by: the provider's copy of the request, only as
    -- its fingerprint (the request itself is never kept), and when the provider says it was created.
    "request_fingerprint" TEXT,
    "model" TEXT,
    "job_created_at" TIMESTAMPTZ(3),
    -- When the worker last looked for uncertain submissions this unowned job may belong to.
    "considered_at" TIMESTAMPTZ(3),

    CONSTRAINT "provider_webhooks_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "provider_webhooks_case_ref_fkey" FOREIGN KEY ("case_ref") REFERENCES "cases"("id"),
    CONSTRAINT "provider_webhooks_permit_ref_fkey" FOREIGN KEY ("permit_ref") REFERENCES "send_permits"("id")
);

CREATE UNIQUE INDEX "provider_webhooks_provider_webhook_id_key" ON "provider_webhooks"("provider", "webhook_id");
CREATE INDEX "provider_webhooks_job" ON "provider_webhooks"("provider", "provider_job_id");
CREATE INDEX "provider_webhooks_case_ref" ON "provider_webhooks"("case_ref") WHERE "case_ref" IS NOT NULL;
-- Kept webhooks whose job nobody owned yet, for the worker's matching sweep.
CREATE INDEX "provider_webhooks_unmatched" ON "provider_webhooks"("id") WHERE "outcome" = 'unmatched';
CREATE INDEX "provider_webhooks_unconsidered" ON "provider_webhooks"("id")
  WHERE "outcome" = 'unmatched' AND "considered_at" IS NULL;
