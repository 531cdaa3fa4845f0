-- Alerts that reach people (docs/decisions/031-alerts.md): rules an admin configures, the places
-- they are sent to, one firing per episode of a rule's condition, and the workers' heartbeats that
-- the worker-silence rule reads. Messages go through the notification outbox, generalised to carry
-- either a producer's notification or an alert for one destination.
CREATE TYPE "AlertDestinationKind" AS ENUM ('webhook', 'slack');
CREATE TYPE "AlertRuleKind" AS ENUM ('uncertainty_growth', 'escalated_overdue', 'suspected_duplicates',
  'poison_actions', 'outputs_expiring', 'resolved_money_held', 'worker_silence', 'provider_error_rate');

CREATE TABLE "alert_destinations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "kind" "AlertDestinationKind" NOT NULL,
    -- A Slack incoming-webhook URL is itself the credential: like a signing secret it is kept as
    -- given (decision 004) and never shown again; lists show its host only.
    "url" TEXT NOT NULL,
    -- Standard Webhooks destinations only: issued by the server, shown once.
    "signing_secret" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_destinations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_destinations_secret_by_kind" CHECK (
      ("kind" = 'webhook' AND "signing_secret" LIKE 'whsec\_%') OR ("kind" = 'slack' AND "signing_secret" IS NULL))
);
CREATE UNIQUE INDEX "alert_destinations_name_key" ON "alert_destinations"("name");

CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "kind" "AlertRuleKind" NOT NULL,
    -- How many (cases, duplicates, actions...) make the condition hold; for worker silence unused.
    "threshold_count" INTEGER NOT NULL DEFAULT 1,
    -- Money that makes it hold on its own (micro-units of threshold_currency), where the rule reads money.
    "threshold_micros" BIGINT,
    "threshold_currency" TEXT,
    -- The window a rule looks back over (uncertainty, poison) or the silence it tolerates (worker).
    "window_minutes" INTEGER NOT NULL DEFAULT 60,
    "renotify_minutes" INTEGER NOT NULL DEFAULT 60,
    "destination_id" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_rules_destination_id_fkey" FOREIGN KEY ("destination_id") REFERENCES "alert_destinations"("id"),
    CONSTRAINT "alert_rules_positive" CHECK ("threshold_count" >= 1 AND "window_minutes" >= 1 AND "renotify_minutes" >= 1),
    CONSTRAINT "alert_rules_money_has_currency" CHECK (("threshold_micros" IS NULL) = ("threshold_currency" IS NULL))
);
CREATE UNIQUE INDEX "alert_rules_name_key" ON "alert_rules"("name");
CREATE INDEX "alert_rules_destination_id_idx" ON "alert_rules"("destination_id");

CREATE TABLE "alert_firings" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "rule_id" UUID NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_at" TIMESTAMPTZ(3),
    "last_notified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notifications" INTEGER NOT NULL DEFAULT 1,
    -- The figures when it fired, and the latest ones (when it last notified, or cleared).
    "figures" JSONB NOT NULL,
    "last_figures" JSONB NOT NULL,

    CONSTRAINT "alert_firings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_firings_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE
);
-- One open episode per rule, whatever two workers evaluate at once: the constraint, not a read.
CREATE UNIQUE INDEX "alert_firings_one_open_per_rule" ON "alert_firings"("rule_id") WHERE "resolved_at" IS NULL;
CREATE INDEX "alert_firings_started_at_idx" ON "alert_firings"("started_at");

-- Each worker's last tick (by the database's clock), for the worker-silence rule.
CREATE TABLE "worker_heartbeats" (
    "worker_id" TEXT NOT NULL,
    "last_tick_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "worker_heartbeats_pkey" PRIMARY KEY ("worker_id")
);

-- The outbox carries alerts too: a message is for a producer's endpoint or for an alert destination.
ALTER TABLE "notification_outbox" ALTER COLUMN "producer" DROP NOT NULL;
ALTER TABLE "notification_outbox" ADD COLUMN "alert_destination_id" UUID;
ALTER TABLE "notification_outbox" ADD COLUMN "alert_firing_id" UUID;
ALTER TABLE "notification_outbox" ADD CONSTRAINT "notification_outbox_alert_destination_id_fkey"
  FOREIGN KEY ("alert_destination_id") REFERENCES "alert_destinations"("id");
ALTER TABLE "notification_outbox" ADD CONSTRAINT "notification_outbox_alert_firing_id_fkey"
  FOREIGN KEY ("alert_firing_id") REFERENCES "alert_firings"("id") ON DELETE SET NULL;
ALTER TABLE "notification_outbox" ADD CONSTRAINT "notification_outbox_one_recipient"
  CHECK (("producer" IS NULL) <> ("alert_destination_id" IS NULL));
CREATE INDEX "notification_outbox_alert_firing_id_idx" ON "notification_outbox"("alert_firing_id");

-- The provider-error-rate rule reads the status checks of its window only.
CREATE INDEX "provider_observations_observed_at_idx" ON "provider_observations"("observed_at");
