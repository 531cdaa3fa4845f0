-- Spend limits at permit issue and a breaker on unknown outcomes (decision 037).

-- A spend limit applies to finance's replacement authorisations (decision 030) or to producers'
-- sends: the permits they ask for before each paid create. A sends limit belongs to one producer
-- and optionally one model, and counts its use itself, per calendar hour and UTC day, so the permit
-- statement checks and takes it with one locked row instead of summing holds.
ALTER TABLE "spend_limits"
    ADD COLUMN "applies_to" TEXT NOT NULL DEFAULT 'replacements',
    ADD COLUMN "model" TEXT,
    -- The window each counter belongs to; a counter of an earlier window reads as zero.
    ADD COLUMN "hour_start" TIMESTAMPTZ(3),
    ADD COLUMN "hour_used_micros" BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN "day_start" TIMESTAMPTZ(3),
    ADD COLUMN "day_used_micros" BIGINT NOT NULL DEFAULT 0,
    ADD CONSTRAINT "spend_limits_applies_to" CHECK ("applies_to" IN ('replacements', 'sends')),
    -- Replacement limits have no model; a sends limit names its producer (no every-producer row
    -- that every permit of every shop would have to lock).
    ADD CONSTRAINT "spend_limits_scope" CHECK (
        ("applies_to" = 'replacements' AND "model" IS NULL) OR ("applies_to" = 'sends' AND "producer" IS NOT NULL));

DROP INDEX "spend_limits_currency_producer_key";
CREATE UNIQUE INDEX "spend_limits_applies_to_currency_producer_model_key"
    ON "spend_limits"("applies_to", "currency", "producer", "model") NULLS NOT DISTINCT;

-- The unknown-outcome breaker, one row per provider an admin configured. The permit statement reads
-- `paused_until` by primary key; a report of `unknown` counts the window's outcomes and may trip it.
CREATE TABLE "provider_breakers" (
    "provider" TEXT NOT NULL,
    "unknown_percent" INTEGER NOT NULL,
    "window_seconds" INTEGER NOT NULL,
    "min_outcomes" INTEGER NOT NULL,
    "paused_until" TIMESTAMPTZ(3),
    "tripped_at" TIMESTAMPTZ(3),
    -- An admin's resume: outcomes reported before it no longer count, so the next unknown does not
    -- trip the breaker again on the figures that tripped it.
    "counts_from" TIMESTAMPTZ(3),
    "updated_by_id" UUID NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_breakers_pkey" PRIMARY KEY ("provider"),
    CONSTRAINT "provider_breakers_figures" CHECK (
        "unknown_percent" BETWEEN 1 AND 100 AND "window_seconds" BETWEEN 60 AND 86400 AND "min_outcomes" >= 1)
);

-- A breaker also pauses one producer at the provider when that producer's own share passes the
-- provider's threshold (its integration failing, not the provider): one row per paused pair.
CREATE TABLE "producer_breaker_pauses" (
    "provider" TEXT NOT NULL,
    "producer" TEXT NOT NULL,
    "paused_until" TIMESTAMPTZ(3),
    "tripped_at" TIMESTAMPTZ(3),
    "counts_from" TIMESTAMPTZ(3),

    CONSTRAINT "producer_breaker_pauses_pkey" PRIMARY KEY ("provider", "producer"),
    CONSTRAINT "producer_breaker_pauses_provider_fkey" FOREIGN KEY ("provider")
        REFERENCES "provider_breakers"("provider") ON DELETE CASCADE
);

-- The breaker's count: permits reported in the window (their last report is their outcome).
CREATE INDEX "send_permits_reported_at" ON "send_permits"("reported_at") WHERE "reported_at" IS NOT NULL;

ALTER TYPE "AlertRuleKind" ADD VALUE 'provider_paused';
