-- Charges no operation explains (docs/decisions/074-charges-no-operation-explains.md): jobs the
-- providers' own job lists show that no attempt owns, kept once each; usage lines finance explains
-- as made outside the product; and the ledger entry that books such a charge, so the ledger equals
-- the imported invoice per provider. Entries stay append-only (DESIGN rule 15).
ALTER TYPE "LedgerEntryKind" ADD VALUE 'outside_charge';
ALTER TYPE "AlertRuleKind" ADD VALUE 'unexplained_charges';

-- An outside charge has no hold: it names its provider and currency instead, and the usage line it
-- books (once: the usage line's unique key). Every other kind keeps its hold. Kinds are compared as
-- text, since the new enum value cannot be named in the transaction that adds it.
ALTER TABLE "ledger_entries" ALTER COLUMN "hold_ref" DROP NOT NULL;
ALTER TABLE "ledger_entries" ADD COLUMN "provider" TEXT;
ALTER TABLE "ledger_entries" ADD COLUMN "currency" TEXT;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_hold_or_outside"
  CHECK (("kind"::text = 'outside_charge') = ("hold_ref" IS NULL)
     AND ("kind"::text = 'outside_charge') = ("provider" IS NOT NULL)
     AND ("kind"::text = 'outside_charge') = ("currency" IS NOT NULL));
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_amount_positive";
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_amount_positive"
  CHECK ("amount_micros" > 0 OR ("kind"::text IN ('adjustment', 'outside_charge') AND "amount_micros" <> 0));
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_adjustment_names_line";
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_adjustment_names_line"
  CHECK (("kind"::text IN ('adjustment', 'outside_charge')) = ("usage_line_ref" IS NOT NULL));
CREATE INDEX "ledger_entries_outside_provider" ON "ledger_entries"("provider") WHERE "hold_ref" IS NULL;

-- A line finance explained as made outside the product: when, by whom and why. It stays without a
-- hold (its unmatched reason says why none took it); its outside charge entry books the money.
ALTER TABLE "usage_lines" ADD COLUMN "explained_at" TIMESTAMPTZ(3);
ALTER TABLE "usage_lines" ADD COLUMN "explained_by" TEXT;
ALTER TABLE "usage_lines" ADD COLUMN "explanation" TEXT;
ALTER TABLE "usage_lines" ADD CONSTRAINT "usage_lines_explained_whole"
  CHECK (("explained_at" IS NULL) = ("explanation" IS NULL) AND ("explained_at" IS NULL) = ("explained_by" IS NULL)
     AND ("explained_at" IS NULL OR "hold_ref" IS NULL));
CREATE INDEX "usage_lines_unexplained_open" ON "usage_lines"("provider", "imported_at")
  WHERE "hold_ref" IS NULL AND "explained_at" IS NULL;

CREATE TABLE "unowned_jobs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "provider" TEXT NOT NULL,
    "provider_job_id" TEXT NOT NULL,
    "model" TEXT,
    "job_created_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "provider_status" TEXT NOT NULL,
    "request_fingerprint" TEXT,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolution" TEXT,
    "resolved_at" TIMESTAMPTZ(3),
    "resolved_by" TEXT,
    "reason" TEXT,
    "attempt_ref" UUID,
    CONSTRAINT "unowned_jobs_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "unowned_jobs_resolution_known" CHECK ("resolution" IS NULL OR "resolution" IN ('attached', 'known_outside')),
    CONSTRAINT "unowned_jobs_resolved_whole"
      CHECK (("resolution" IS NULL) = ("resolved_at" IS NULL) AND ("resolution" IS NULL) = ("resolved_by" IS NULL)),
    CONSTRAINT "unowned_jobs_attempt_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id") ON DELETE SET NULL
);
CREATE UNIQUE INDEX "unowned_jobs_provider_provider_job_id_key" ON "unowned_jobs"("provider", "provider_job_id");
CREATE INDEX "unowned_jobs_first_seen_at_idx" ON "unowned_jobs"("first_seen_at");

CREATE TABLE "job_sweep_schedule" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "next_run_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_run_at" TIMESTAMPTZ(3),
    "last_found" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "job_sweep_schedule_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "job_sweep_schedule_one_row" CHECK ("id")
);
