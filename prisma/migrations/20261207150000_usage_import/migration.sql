-- Usage import (docs/decisions/073-usage-import-and-settling-at-the-real-charge.md): the lines of a
-- provider's usage or invoice export, or a job's cost read from its API, kept once each (the line's
-- hash), matched to the hold of the attempt that owns the job (DESIGN rule 11), and the difference
-- to what the ledger charged booked as an `adjustment` entry that names its line. An entry is never
-- edited (DESIGN rule 15): a correction is a new entry, which may be negative.
ALTER TYPE "LedgerEntryKind" ADD VALUE 'adjustment';

CREATE TYPE "UsageSource" AS ENUM ('api', 'file');

CREATE TABLE "usage_lines" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "provider" TEXT NOT NULL,
    "provider_account" TEXT,
    "provider_job_id" TEXT,
    "model" TEXT,
    "usage_at" TIMESTAMPTZ(3) NOT NULL,
    "amount_micros" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "source" "UsageSource" NOT NULL,
    "format" TEXT NOT NULL,
    "source_hash" TEXT NOT NULL,
    "line_hash" TEXT NOT NULL,
    "line_number" INTEGER,
    "attempt_ref" UUID,
    "hold_ref" UUID,
    "adjustment_micros" BIGINT,
    "unmatched_reason" TEXT,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "imported_by_id" UUID,
    "imported_by" TEXT NOT NULL,
    CONSTRAINT "usage_lines_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "usage_lines_attempt_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id"),
    CONSTRAINT "usage_lines_hold_fkey" FOREIGN KEY ("hold_ref") REFERENCES "holds"("id"),
    CONSTRAINT "usage_lines_amount_bounded" CHECK (abs("amount_micros") <= 1000000000000000),
    CONSTRAINT "usage_lines_matched_or_why" CHECK (("hold_ref" IS NULL) <> ("unmatched_reason" IS NULL))
);

-- The same export imported twice changes nothing: one row per line, by its hash.
CREATE UNIQUE INDEX "usage_lines_line_hash_key" ON "usage_lines"("line_hash");
CREATE INDEX "usage_lines_provider_job" ON "usage_lines"("provider", "provider_job_id");
CREATE INDEX "usage_lines_hold_ref" ON "usage_lines"("hold_ref");
-- The unexplained lines, counted and listed on Finance until another part settles them.
CREATE INDEX "usage_lines_unexplained" ON "usage_lines"("imported_at") WHERE "hold_ref" IS NULL;

-- An adjustment names the usage line that caused it, once; every other kind stays once per hold
-- (NULLS NOT DISTINCT keeps (hold, kind) unique where no line is named).
ALTER TABLE "ledger_entries" ADD COLUMN "usage_line_ref" UUID;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_usage_line_fkey"
  FOREIGN KEY ("usage_line_ref") REFERENCES "usage_lines"("id");
CREATE UNIQUE INDEX "ledger_entries_usage_line_ref_key" ON "ledger_entries"("usage_line_ref");
DROP INDEX "ledger_entries_hold_ref_kind_key";
CREATE UNIQUE INDEX "ledger_entries_hold_ref_kind_usage_line_ref_key"
  ON "ledger_entries"("hold_ref", "kind", "usage_line_ref") NULLS NOT DISTINCT;

-- Compared as text, since the new enum value cannot be named in the transaction that adds it.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_amount_positive";
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_amount_positive"
  CHECK ("amount_micros" > 0 OR ("kind"::text = 'adjustment' AND "amount_micros" <> 0));
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_adjustment_names_line"
  CHECK (("kind"::text = 'adjustment') = ("usage_line_ref" IS NOT NULL));
