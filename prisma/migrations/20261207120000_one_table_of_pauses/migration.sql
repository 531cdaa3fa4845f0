-- Decision 070: one table of pauses. A person's pause (decision 064, was scope_pauses) and the
-- unknown-outcome breaker's pause of a provider or of one producer at it (decision 037, was
-- provider_breakers.paused_until and producer_breaker_pauses) are rows of `pauses`, told apart by
-- their cause. provider_breakers keeps only the breaker's settings and where its count starts.
CREATE TYPE "PauseCause" AS ENUM ('person', 'breaker');

CREATE TABLE "pauses" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" "PauseKind" NOT NULL,
    "value" TEXT NOT NULL,
    -- The breaker's pause of one producer holds at one provider only; '' for every other pause.
    "at_provider" TEXT NOT NULL DEFAULT '',
    "cause" "PauseCause" NOT NULL,
    "reason" TEXT NOT NULL,
    -- NULL: the breaker paused it, on the report that tipped it.
    "paused_by_id" UUID,
    "paused_by_label" TEXT NOT NULL,
    "paused_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- The breaker's automatic end; NULL: until someone resumes it.
    "until" TIMESTAMPTZ(3),
    "resumed_at" TIMESTAMPTZ(3),
    "resumed_by_label" TEXT,
    "resume_reason" TEXT,

    CONSTRAINT "pauses_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "pauses_breaker_ends" CHECK (("cause" = 'breaker') = ("until" IS NOT NULL)),
    CONSTRAINT "pauses_at_provider" CHECK ("at_provider" = '' OR ("cause" = 'breaker' AND "kind" = 'producer'))
);

-- One open pause per scope and cause: a person's and the breaker's pause of one provider coexist,
-- and the permit gate reads the send's three keys through this index.
CREATE UNIQUE INDEX "pauses_open" ON "pauses"("kind", "value", "at_provider", "cause") WHERE "resumed_at" IS NULL;
-- The claim's check (decision 064): a person's open pauses only, empty while nobody paused anything.
CREATE INDEX "pauses_people_open" ON "pauses"("kind", "value") WHERE "resumed_at" IS NULL AND "cause" = 'person';
-- The breaker's count starts after the last resume of a producer's pause at the provider.
CREATE INDEX "pauses_resumed" ON "pauses"("kind", "value", "at_provider", "resumed_at") WHERE "resumed_at" IS NOT NULL;

INSERT INTO "pauses" ("kind", "value", "cause", "reason", "paused_by_id", "paused_by_label", "paused_at")
SELECT "kind", "value", 'person', "reason", "paused_by_id", "paused_by_label", "paused_at" FROM "scope_pauses";

-- A breaker pause whose window has passed ended then, on its own.
INSERT INTO "pauses" ("kind", "value", "cause", "reason", "paused_by_label", "paused_at", "until", "resumed_at", "resumed_by_label")
SELECT 'provider', "provider", 'breaker', 'Too many recent sends ended with an unknown outcome.', 'Unknown-outcome breaker',
       coalesce("tripped_at", "paused_until"), "paused_until",
       CASE WHEN "paused_until" <= now() THEN "paused_until" END,
       CASE WHEN "paused_until" <= now() THEN 'Its window ended' END
FROM "provider_breakers" WHERE "paused_until" IS NOT NULL;

INSERT INTO "pauses" ("kind", "value", "at_provider", "cause", "reason", "paused_by_label", "paused_at", "until", "resumed_at", "resumed_by_label")
SELECT 'producer', "producer", "provider", 'breaker', 'Too many of this producer''s recent sends ended with an unknown outcome.',
       'Unknown-outcome breaker', coalesce("tripped_at", "paused_until"), "paused_until",
       CASE WHEN "paused_until" <= now() THEN "paused_until" END,
       CASE WHEN "paused_until" <= now() THEN 'Its window ended' END
FROM "producer_breaker_pauses" WHERE "paused_until" IS NOT NULL;

-- A producer's own count start: an admin's resume set it with the provider's, which provider_breakers
-- keeps; one set later is kept as a resumed pause of that producer at the provider.
INSERT INTO "pauses" ("kind", "value", "at_provider", "cause", "reason", "paused_by_label", "paused_at", "until", "resumed_at", "resumed_by_label")
SELECT 'producer', pp."producer", pp."provider", 'breaker', 'Too many of this producer''s recent sends ended with an unknown outcome.',
       'Unknown-outcome breaker', coalesce(pp."tripped_at", pp."counts_from"), pp."counts_from", pp."counts_from", 'Resumed'
FROM "producer_breaker_pauses" pp JOIN "provider_breakers" b ON b."provider" = pp."provider"
WHERE pp."counts_from" IS NOT NULL AND pp."counts_from" > coalesce(b."counts_from", '-infinity')
  AND pp."paused_until" IS NULL;

DROP TABLE "producer_breaker_pauses";
DROP TABLE "scope_pauses";
ALTER TABLE "provider_breakers" DROP COLUMN "paused_until", DROP COLUMN "tripped_at";
