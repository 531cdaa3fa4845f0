-- DESIGN rule 18 (docs/decisions/046-write-off-and-charge-after-release.md): every paid video has a
-- charge record. A completion the provider proves after its hold was released books a flagged
-- `late_charge` entry (one per hold, by the ledger's (hold, kind) key), and the hold carries the flag
-- until finance decides it. A release while the send's outcome is unknown is a write-off, marked
-- on the hold. The app role's grants on both tables cover the new columns and value.
ALTER TYPE "LedgerEntryKind" ADD VALUE 'late_charge';
ALTER TYPE "AlertRuleKind" ADD VALUE 'charged_after_release';

ALTER TABLE "holds"
  ADD COLUMN "written_off" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "late_charged_at" TIMESTAMPTZ(3),
  ADD COLUMN "late_charge_decided_at" TIMESTAMPTZ(3),
  ADD COLUMN "late_charge_decided_by_id" UUID,
  ADD COLUMN "late_charge_note" TEXT;

-- The charges nobody has decided yet: a handful among millions of holds, read by Finance, the
-- overview, metrics and the alert rule.
CREATE INDEX "holds_late_charge_open" ON "holds"("late_charged_at")
  WHERE "late_charged_at" IS NOT NULL AND "late_charge_decided_at" IS NULL;

-- A late charge is flagged like an overage: money nobody reserved. Compared as text, since the new
-- enum value cannot be named in the transaction that adds it.
ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_only_overage_flagged";
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_only_overage_flagged"
  CHECK ("flagged" = ("kind"::text IN ('overage', 'late_charge')));
