-- Decision 064: a person's pause of a provider, producer or model, one row per scope, and what the
-- workers page shows of each worker beyond its last tick. The app role's grants cover both (lib/db/roles.ts).
CREATE TYPE "PauseKind" AS ENUM ('provider', 'producer', 'model');

CREATE TABLE "scope_pauses" (
    "kind" "PauseKind" NOT NULL,
    "value" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "paused_by_id" UUID NOT NULL,
    "paused_by_label" TEXT NOT NULL,
    "paused_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scope_pauses_pkey" PRIMARY KEY ("kind", "value")
);

ALTER TABLE "worker_heartbeats"
    ADD COLUMN "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "last_error" TEXT,
    ADD COLUMN "last_error_at" TIMESTAMPTZ(3),
    ADD COLUMN "leases_lost" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "leases_rescued" INTEGER NOT NULL DEFAULT 0;
