-- A provider webhook's job index leads with the job (docs/decisions/081-webhook-intake-plans-that-cannot-drift.md).
--
-- The intake reads an event by its unique key (provider, webhook_id). With the job index on
-- (provider, provider_job_id), both indexes answer `provider = $1`, and a prepared statement's
-- generic plan made while the table was nearly empty may take the job index and filter every row of
-- the provider for the event: a read that grows with the table, kept for the connection's life.
-- Led by the job, this index serves only lookups that name the job (every query that uses it
-- names both), so the event's own key is the one index that can answer an event's lookup.
DROP INDEX "provider_webhooks_job";
CREATE INDEX "provider_webhooks_job" ON "provider_webhooks"("provider_job_id", "provider");
