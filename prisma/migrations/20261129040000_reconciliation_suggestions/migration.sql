-- CreateTable
CREATE TABLE "reconciliation_suggestions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "case_id" UUID NOT NULL,
    "episode" INTEGER NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "confidence" INTEGER NOT NULL,
    "matched" JSONB NOT NULL,
    "provider_status" TEXT NOT NULL,
    "job_created_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reconciliation_suggestions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "reconciliation_suggestions_confidence" CHECK ("confidence" BETWEEN 0 AND 100),
    CONSTRAINT "reconciliation_suggestions_status" CHECK ("status" IN ('open', 'confirmed', 'dismissed')),
    CONSTRAINT "reconciliation_suggestions_matched_list" CHECK (jsonb_typeof("matched") = 'array')
);

-- CreateIndex
CREATE UNIQUE INDEX "reconciliation_suggestions_case_id_episode_provider_job_id_key" ON "reconciliation_suggestions"("case_id", "episode", "provider_job_id");

-- At most one confirmed suggestion per case episode: a second confirmation cannot slip in.
CREATE UNIQUE INDEX "reconciliation_suggestions_one_confirmed" ON "reconciliation_suggestions"("case_id", "episode") WHERE "status" = 'confirmed';

-- AddForeignKey
ALTER TABLE "reconciliation_suggestions" ADD CONSTRAINT "reconciliation_suggestions_case_id_fkey" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
