-- CreateEnum
CREATE TYPE "PriceUnit" AS ENUM ('per_generation', 'per_second');

-- CreateTable
-- One endpoint per producer. The signing secret stays usable for HMAC (docs/decisions/004-webhook-secrets.md).
CREATE TABLE "notification_endpoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "producer" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "signing_secret" TEXT NOT NULL,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_endpoints_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "notification_endpoints_url_http" CHECK ("url" ~ '^https?://' AND length("url") <= 2048),
    -- Standard Webhooks: "whsec_" followed by the base64 of 32 random bytes.
    CONSTRAINT "notification_endpoints_secret_format" CHECK ("signing_secret" ~ '^whsec_[A-Za-z0-9+/]{43}=$')
);

-- CreateTable
CREATE TABLE "provider_prices" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "unit" "PriceUnit" NOT NULL,
    "price_micros" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_prices_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "provider_prices_price_positive" CHECK ("price_micros" > 0),
    CONSTRAINT "provider_prices_currency_code" CHECK ("currency" ~ '^[A-Z]{3}$'),
    CONSTRAINT "provider_prices_names_present" CHECK (length(btrim("provider")) > 0 AND length(btrim("model")) > 0)
);

-- CreateIndex
CREATE UNIQUE INDEX "notification_endpoints_producer_key" ON "notification_endpoints"("producer");
CREATE UNIQUE INDEX "provider_prices_provider_model_key" ON "provider_prices"("provider", "model");
