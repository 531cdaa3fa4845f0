-- A refused claim is kept once per claimant and job (docs/decisions/039-refused-claims-are-kept.md):
-- two refused reports at the same moment cannot both write it and flag the holder's timeline twice.
CREATE UNIQUE INDEX "job_claim_conflicts_refused_once"
  ON "job_claim_conflicts"("provider", "provider_job_id", "claimant_attempt_ref")
  WHERE "outcome" = 'refused';
