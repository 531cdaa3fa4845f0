-- Bulk verbs on a filter (issue 19, part 4; decision 032). A dry run is kept here so that its
-- execution acts on exactly the previewed cases, at the versions the preview read, once: the
-- execution presents the token (only its SHA-256 is stored), from the same user, before it expires.
CREATE TABLE "bulk_previews" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "token_hash" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "verb" TEXT NOT NULL,
    "request_digest" TEXT NOT NULL,
    "cases" JSONB NOT NULL,
    "skipped" JSONB NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bulk_previews_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "bulk_previews_token_hash_key" ON "bulk_previews"("token_hash");
CREATE INDEX "bulk_previews_expires_at_idx" ON "bulk_previews"("expires_at");
ALTER TABLE "bulk_previews" ADD CONSTRAINT "bulk_previews_user_id_fkey"
    FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
