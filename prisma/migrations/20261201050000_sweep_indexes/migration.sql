-- Two reads that every worker tick makes, kept off full scans as the tables grow.
--
-- Poison sweep (park-poison-actions.ts): ready actions whose recorded claim failures reached the
-- threshold. The threshold is configurable, so the index orders ready actions by their failure count
-- and the sweep reads only the range at or above it instead of every ready action.
CREATE INDEX "recovery_actions_ready_by_failures"
  ON "recovery_actions" ((jsonb_array_length("failures")), "ready_at", "id") WHERE "status" = 'ready';

-- Watch for replaced originals (watch-replaced-originals.ts): when the original attempt was last
-- looked for. Only those checks are indexed; status-check observations stay out of it.
CREATE INDEX "provider_observations_original_checks"
  ON "provider_observations" ("attempt_ref", "observed_at") WHERE "kind" = 'original_job_check';
