-- The sends near an unexplained charge (decision 080) are read by time among the job-less attempts.
--
-- Every attempt that never learned its job (refused, failed, "no job exists", a lost answer) stays
-- job-less for good, so the (provider, provider_job_id) key's NULL range grows with the product's
-- age, and "Charges no operation explains" read all of it for each charge of a page. Keyed by the
-- time the list compares (the attempt's send time, else when it was recorded), a charge reads only
-- the two days around it.
CREATE INDEX "attempts_jobless_sent_at" ON "attempts" ("provider", (coalesce("submitted_at", "created_at")))
  WHERE "provider_job_id" IS NULL;
