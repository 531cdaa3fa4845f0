-- An asset row is now reserved (unpublished) before any byte is written, so that a clash on a
-- storage key is caught by the unique index before a file can be damaged. Its checksum and size
-- are known only once the copy is verified, at publish; rows published before this migration
-- keep their values and their keys, and stay valid.
ALTER TABLE "assets" ALTER COLUMN "sha256" DROP NOT NULL;
ALTER TABLE "assets" ALTER COLUMN "size_bytes" DROP NOT NULL;
ALTER TABLE "assets" ADD CONSTRAINT "assets_published_has_content"
    CHECK ("published_at" IS NULL OR ("sha256" IS NOT NULL AND "size_bytes" IS NOT NULL));

-- The failure of each claim that ended without finishing (an error, or a lease that ran out),
-- kept as the evidence a parked poison action carries.
ALTER TABLE "recovery_actions" ADD COLUMN "failures" JSONB NOT NULL DEFAULT '[]';
