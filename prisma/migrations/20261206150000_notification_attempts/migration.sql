-- Each send of a webhook, with what came of it, so a case page can show every attempt's answer
-- (decision 066). The outcome is a word, not the sender's error text: what a producer's host name
-- resolved to inside this network is not shown (decision 018). Rows end with their message.
CREATE TABLE "notification_attempts" (
    "id" BIGSERIAL NOT NULL,
    "message_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "status" INTEGER,
    "answered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "notification_attempts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "notification_attempts_outcome_check"
      CHECK ("outcome" IN ('delivered', 'error_answer', 'no_answer', 'address_refused', 'no_endpoint'))
);

CREATE INDEX "notification_attempts_message_id_id_idx" ON "notification_attempts"("message_id", "id");

ALTER TABLE "notification_attempts" ADD CONSTRAINT "notification_attempts_message_id_fkey"
  FOREIGN KEY ("message_id") REFERENCES "notification_outbox"("id") ON DELETE CASCADE ON UPDATE CASCADE;
