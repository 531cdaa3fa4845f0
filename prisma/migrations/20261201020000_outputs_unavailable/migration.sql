-- Outputs the provider no longer has, and delivering before they expire.
--
-- `outputs_unavailable_at`: when the worker learnt that the provider deleted this episode's outputs
-- (retention passed); a copy cannot succeed any more, so only accepting the loss or a replacement
-- is permitted. Cleared when a new episode reopens the case.
-- `outputs_expire_at`: the earliest moment one of this episode's outputs is expected to stop being
-- served, from the provider's completion answer and its documented retention.
ALTER TABLE "cases" ADD COLUMN "outputs_unavailable_at" TIMESTAMPTZ(3);
ALTER TABLE "cases" ADD COLUMN "outputs_expire_at" TIMESTAMPTZ(3);

-- The overview's "expiring within 1 h" reads only open cases that have an expiry.
CREATE INDEX "cases_open_outputs_expire_at" ON "cases"("outputs_expire_at")
  WHERE "outputs_expire_at" IS NOT NULL AND "state" <> 'resolved';

-- Copied from the case when a delivery is approved, so the claim can order by it without a join.
ALTER TABLE "recovery_actions" ADD COLUMN "outputs_expire_at" TIMESTAMPTZ(3);

-- The claim walks ready actions earliest expiry first (NULLs, i.e. status checks, after them, in
-- ready order); in this order the `ready_at <= now()` filter skips only deliveries that are not
-- due yet, which are few, so LIMIT stops early as it did on the old (ready_at, id) index.
CREATE INDEX "recovery_actions_ready_by_expiry" ON "recovery_actions"("outputs_expire_at", "ready_at", "id")
  WHERE "status" = 'ready';

-- The worker's record that the provider deleted the outputs sits with the status answers it follows.
ALTER TABLE "provider_observations" DROP CONSTRAINT "provider_observations_kind";
ALTER TABLE "provider_observations" ADD CONSTRAINT "provider_observations_kind"
  CHECK ("kind" IN ('running', 'completed', 'failed', 'not_found', 'unknown', 'outputs_unavailable'));
