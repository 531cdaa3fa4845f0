-- A producer's notification that was given up (its endpoint answered 410, or 12 sends failed) leaves
-- its case flagged "producer not told" until a resend is delivered (decision 045). The flag is read
-- from the outbox itself, so these few rows get a partial index: the overview, the metric, the alert
-- rule and the queue's filter count them without reading every message ever sent.
CREATE INDEX "notification_outbox_given_up_case_id" ON "notification_outbox"("case_id")
  WHERE "producer" IS NOT NULL AND "case_id" IS NOT NULL AND "give_up_at" IS NOT NULL AND "delivered_at" IS NULL;

-- The alert rule kind that counts those cases.
ALTER TYPE "AlertRuleKind" ADD VALUE 'producer_not_told';
