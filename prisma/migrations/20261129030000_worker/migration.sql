-- CreateTable
CREATE TABLE "provider_observations" (
    "id" BIGSERIAL NOT NULL,
    "case_id" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "action_id" UUID,
    "fencing_token" BIGINT,
    "kind" TEXT NOT NULL,
    "provider_status" TEXT,
    "outputs" JSONB,
    "detail" JSONB,
    "observed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_observations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "provider_observations_kind" CHECK ("kind" IN ('running', 'completed', 'failed', 'not_found', 'unknown'))
);

-- CreateTable
CREATE TABLE "assets" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "action_id" UUID NOT NULL,
    "fencing_token" BIGINT NOT NULL,
    "output_index" INTEGER NOT NULL,
    "storage_key" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "content_type" TEXT,
    "published_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "assets_sha256_hex" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
    CONSTRAINT "assets_size_not_negative" CHECK ("size_bytes" >= 0)
);

-- CreateTable
CREATE TABLE "notification_outbox" (
    "id" TEXT NOT NULL,
    "producer" TEXT NOT NULL,
    "case_id" UUID,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_error" TEXT,
    "give_up_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provider_observations_case_id_id_idx" ON "provider_observations"("case_id", "id");
CREATE UNIQUE INDEX "assets_storage_key_key" ON "assets"("storage_key");
CREATE INDEX "assets_case_id_idx" ON "assets"("case_id");
CREATE INDEX "notification_outbox_next_attempt_at_idx" ON "notification_outbox"("next_attempt_at");
CREATE INDEX "notification_outbox_case_id_idx" ON "notification_outbox"("case_id");

-- At most one published copy of each output of an attempt: a stale worker cannot add a second.
CREATE UNIQUE INDEX "assets_one_published_per_output" ON "assets"("attempt_ref", "output_index") WHERE "published_at" IS NOT NULL;
-- The dispatcher's queue: undelivered messages that have not been given up on.
CREATE INDEX "notification_outbox_due" ON "notification_outbox"("next_attempt_at") WHERE "delivered_at" IS NULL AND "give_up_at" IS NULL;

-- AddForeignKey
ALTER TABLE "provider_observations" ADD CONSTRAINT "provider_observations_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "assets" ADD CONSTRAINT "assets_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
