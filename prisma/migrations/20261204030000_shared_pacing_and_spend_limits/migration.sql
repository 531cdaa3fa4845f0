-- Provider pacing shared by every worker process (decision 030): the next free request slot and the
-- end of the provider's last Retry-After live here, so one UPDATE reserves a slot across processes.
CREATE TABLE "provider_pace" (
    "provider" TEXT NOT NULL,
    -- NULL: unpaced, but a Retry-After seen by one process still holds back every other.
    "requests_per_second" DOUBLE PRECISION,
    "next_slot_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "hold_off_until" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by_id" UUID,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_pace_pkey" PRIMARY KEY ("provider"),
    CONSTRAINT "provider_pace_rate_positive" CHECK ("requests_per_second" IS NULL OR "requests_per_second" > 0)
);

-- Spend limits on replacements: per currency, for every producer (producer NULL) or one.
CREATE TABLE "spend_limits" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "currency" TEXT NOT NULL,
    "producer" TEXT,
    "per_hour_micros" BIGINT,
    "per_day_micros" BIGINT,
    "updated_by_id" UUID NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spend_limits_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "spend_limits_figures" CHECK (
        ("per_hour_micros" IS NOT NULL OR "per_day_micros" IS NOT NULL)
        AND coalesce("per_hour_micros", 0) >= 0 AND coalesce("per_day_micros", 0) >= 0)
);

-- One limit per currency and producer, the every-producer limit (NULL) included.
CREATE UNIQUE INDEX "spend_limits_currency_producer_key" ON "spend_limits"("currency", "producer") NULLS NOT DISTINCT;

-- The use of a limit: replacements authorised in the last day, by currency.
CREATE INDEX "replacement_requests_authorised_spend" ON "replacement_requests"("currency", "decided_at")
    WHERE "new_attempt_ref" IS NOT NULL;
