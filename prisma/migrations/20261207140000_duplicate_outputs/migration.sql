-- Decision 072: two paid jobs that delivered the same bytes are flagged as a suspected paid duplicate.

-- Every published copy's digest is looked up when another copy publishes. Rows whose file retention
-- deleted keep their digest, so they stay in the index and still match.
CREATE INDEX "assets_sha256_published_idx" ON "assets"("sha256")
    WHERE "sha256" IS NOT NULL AND "published_at" IS NOT NULL;

-- One row per pair of published copies with the same SHA-256 from two different attempts (two paid
-- jobs). The pair is stored in one order (lower asset id first), so whichever copy publishes first,
-- and however many times either side looks, it is recorded once.
CREATE TABLE "output_duplicates" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "sha256" TEXT NOT NULL,
    "first_asset_id" UUID NOT NULL,
    "second_asset_id" UUID NOT NULL,
    "first_case_id" UUID NOT NULL,
    "second_case_id" UUID NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "output_duplicates_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "output_duplicates_ordered" CHECK ("first_asset_id" < "second_asset_id")
);

CREATE UNIQUE INDEX "output_duplicates_pair_key" ON "output_duplicates"("first_asset_id", "second_asset_id");
CREATE INDEX "output_duplicates_first_case_id_idx" ON "output_duplicates"("first_case_id");
CREATE INDEX "output_duplicates_second_case_id_idx" ON "output_duplicates"("second_case_id");
CREATE INDEX "output_duplicates_detected_at_idx" ON "output_duplicates"("detected_at" DESC);

-- A case or copy removed by retention takes its flags with it (DESIGN rule 20): the flag is about
-- money finance decides long before either record's end.
ALTER TABLE "output_duplicates" ADD CONSTRAINT "output_duplicates_first_asset_id_fkey" FOREIGN KEY ("first_asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "output_duplicates" ADD CONSTRAINT "output_duplicates_second_asset_id_fkey" FOREIGN KEY ("second_asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "output_duplicates" ADD CONSTRAINT "output_duplicates_first_case_id_fkey" FOREIGN KEY ("first_case_id") REFERENCES "cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "output_duplicates" ADD CONSTRAINT "output_duplicates_second_case_id_fkey" FOREIGN KEY ("second_case_id") REFERENCES "cases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The copies published before this migration: every pair found once, now. Their timelines get no
-- row (the audit writer is the application's); the case page and the Finance page read this table.
INSERT INTO "output_duplicates" ("sha256", "first_asset_id", "second_asset_id", "first_case_id", "second_case_id")
SELECT a."sha256", a."id", b."id", a."case_id", b."case_id"
FROM "assets" a
JOIN "assets" b ON b."sha256" = a."sha256" AND a."id" < b."id" AND b."attempt_ref" <> a."attempt_ref"
WHERE a."sha256" IS NOT NULL AND a."published_at" IS NOT NULL AND b."published_at" IS NOT NULL
ON CONFLICT ("first_asset_id", "second_asset_id") DO NOTHING;

ALTER TYPE "AlertRuleKind" ADD VALUE 'duplicate_outputs';
