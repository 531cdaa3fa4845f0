-- Rule 14: a replacement that rests on "no job exists" is looked at again before it is paid for.

-- A request the producer must no longer act on: closed before authorisation because the original job
-- turned up, or authorised but withdrawn before the producer acknowledged it.
ALTER TYPE "ReplacementStatus" ADD VALUE IF NOT EXISTS 'withdrawn';

ALTER TABLE "replacement_requests" ADD COLUMN "closed_reason" TEXT;

-- A withdrawn request may or may not have got as far as its replacement attempt. Compared as text:
-- the new enum value cannot be used in the transaction that adds it.
ALTER TABLE "replacement_requests" DROP CONSTRAINT "replacement_requests_authorized_has_attempt";
ALTER TABLE "replacement_requests" ADD CONSTRAINT "replacement_requests_authorized_has_attempt"
    CHECK ("status"::text = 'withdrawn' OR (("status"::text = 'authorized') = ("new_attempt_ref" IS NOT NULL)));
-- Withdrawn always says why.
ALTER TABLE "replacement_requests" ADD CONSTRAINT "replacement_requests_withdrawn_has_reason"
    CHECK ("status"::text <> 'withdrawn' OR "closed_reason" IS NOT NULL);

-- How long a lagging job list is given to show a late job, per provider; absent rows fall back to the
-- adapter's own default.
CREATE TABLE "provider_settings" (
    "provider" TEXT NOT NULL,
    "no_job_settling_seconds" INTEGER NOT NULL,
    "updated_by_id" UUID,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_settings_pkey" PRIMARY KEY ("provider"),
    CONSTRAINT "provider_settings_settling_range" CHECK ("no_job_settling_seconds" BETWEEN 0 AND 604800)
);

-- The original job of a replaced attempt became visible after the replacement was authorised: both
-- attempts may be charged, so finance sees the pair until it decides.
CREATE TABLE "suspected_duplicates" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "request_id" UUID NOT NULL,
    "original_attempt_ref" UUID NOT NULL,
    "replacement_attempt_ref" UUID NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "withdrawn" BOOLEAN NOT NULL DEFAULT false,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "suspected_duplicates_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "suspected_duplicates_request_id_key" ON "suspected_duplicates"("request_id");
CREATE INDEX "suspected_duplicates_case_id_idx" ON "suspected_duplicates"("case_id");

ALTER TABLE "suspected_duplicates" ADD CONSTRAINT "suspected_duplicates_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "suspected_duplicates" ADD CONSTRAINT "suspected_duplicates_request_id_fkey" FOREIGN KEY ("request_id") REFERENCES "replacement_requests"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A fresh look for the original job is a provider observation too. 'outputs_unavailable' (rule 13)
-- is listed as well so that this constraint, whichever migration defines it last, admits both.
ALTER TABLE "provider_observations" DROP CONSTRAINT "provider_observations_kind";
ALTER TABLE "provider_observations" ADD CONSTRAINT "provider_observations_kind"
    CHECK ("kind" IN ('running', 'completed', 'failed', 'not_found', 'unknown', 'outputs_unavailable', 'original_job_check'));
