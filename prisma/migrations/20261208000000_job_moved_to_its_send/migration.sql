-- A job finance moves from the send that claimed it to the send that made it (decision 084): the
-- adjustment its usage line booked on the wrong hold is reversed by an adjustment that names the
-- same line and the entry it reverses, and the line then corrects the right hold. So a line may be
-- named by more than one entry, each once per hold; an entry is reversed at most once.
ALTER TABLE "ledger_entries" ADD COLUMN "reverses_entry_ref" UUID;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_reverses_entry_fkey"
  FOREIGN KEY ("reverses_entry_ref") REFERENCES "ledger_entries"("id");
CREATE UNIQUE INDEX "ledger_entries_reverses_entry_ref_key" ON "ledger_entries"("reverses_entry_ref");
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_reversal_is_adjustment"
  CHECK ("reverses_entry_ref" IS NULL OR "kind" = 'adjustment');
DROP INDEX "ledger_entries_usage_line_ref_key";
DROP INDEX "ledger_entries_hold_ref_kind_usage_line_ref_key";
CREATE UNIQUE INDEX "ledger_entries_hold_ref_kind_usage_line_ref_key"
  ON "ledger_entries"("hold_ref", "kind", "usage_line_ref", "reverses_entry_ref") NULLS NOT DISTINCT;
CREATE INDEX "ledger_entries_usage_line_ref" ON "ledger_entries"("usage_line_ref") WHERE "usage_line_ref" IS NOT NULL;

-- A resolved case whose job moved to the send that made it names no job any more; its outcome and
-- its timeline (which job it had, and why it lost it) stay. An open case still needs its job at
-- status checks and delivery.
ALTER TABLE "cases" DROP CONSTRAINT "cases_known_job_stages_have_job";
ALTER TABLE "cases" ADD CONSTRAINT "cases_known_job_stages_have_job"
  CHECK ("stage" NOT IN ('polling', 'delivery') OR "provider_job_id" IS NOT NULL OR "state" = 'resolved');
