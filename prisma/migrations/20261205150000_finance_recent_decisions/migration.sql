-- Finance's "Recently decided" list reads the newest decisions of three kinds on every page load:
-- holds finance settled, released or wrote off, charges after release it decided, and replacement
-- requests it authorised or declined. Each is read newest first from its own partial index, so the
-- list costs a few index entries however many holds the ledger has; holds settled on the provider's
-- word (no person decided them) are not in the first.
CREATE INDEX "holds_decided_recent_idx" ON "holds"("resolved_at" DESC, "id" DESC) WHERE "decided_by_id" IS NOT NULL;
CREATE INDEX "holds_late_charge_decided_idx" ON "holds"("late_charge_decided_at" DESC, "id" DESC)
  WHERE "late_charge_decided_at" IS NOT NULL;
CREATE INDEX "replacement_requests_decided_idx" ON "replacement_requests"("decided_at" DESC, "id" DESC)
  WHERE "decided_at" IS NOT NULL;
