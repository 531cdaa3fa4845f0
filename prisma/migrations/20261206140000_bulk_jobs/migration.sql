-- A bulk execution as a tracked job (decision 065): the confirmed dry run's items, worked through in
-- paced batches by the console's own loop, each item marked in the transaction that acts on it, so
-- progress is exact, a cancel stops the items not yet taken, and no item is acted on twice.
CREATE TABLE "bulk_jobs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "preview_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "verb" TEXT NOT NULL,
    "action" JSONB NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "planned" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "preview_skipped" JSONB NOT NULL,
    "batch_size" INTEGER NOT NULL,
    "pause_ms" INTEGER NOT NULL,
    "next_batch_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cancelled_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "bulk_jobs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "bulk_jobs_state_check" CHECK ("state" IN ('running', 'cancelled', 'finished')),
    CONSTRAINT "bulk_jobs_kind_check" CHECK ("kind" IN ('cases', 'holds'))
);
CREATE UNIQUE INDEX "bulk_jobs_preview_id_key" ON "bulk_jobs"("preview_id");
CREATE INDEX "bulk_jobs_state_next_batch_at_idx" ON "bulk_jobs"("state", "next_batch_at");
ALTER TABLE "bulk_jobs" ADD CONSTRAINT "bulk_jobs_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "bulk_job_items" (
    "job_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "ref_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "outcome" TEXT,
    "code" TEXT,
    "message" TEXT,
    "operation_id" TEXT,
    "done_at" TIMESTAMPTZ(3),

    CONSTRAINT "bulk_job_items_pkey" PRIMARY KEY ("job_id", "position"),
    CONSTRAINT "bulk_job_items_outcome_check" CHECK ("outcome" IS NULL OR "outcome" IN ('done', 'skipped', 'failed'))
);
ALTER TABLE "bulk_job_items" ADD CONSTRAINT "bulk_job_items_job_id_fkey"
    FOREIGN KEY ("job_id") REFERENCES "bulk_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
