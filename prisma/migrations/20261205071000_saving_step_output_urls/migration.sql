-- The output URLs a completion handed out, kept whole (signed query included) so the saving step can
-- fetch them again without asking the provider, until they expire
-- (docs/decisions/043-kept-output-urls.md). Evidence keeps the same URLs without their query
-- (DESIGN rule 10); this table is read by the worker's delivery alone, and never by a page, an
-- answer, an export or a log. A row goes when its outputs are delivered, or by retention once
-- `expires_at` has passed (DESIGN rule 20).
CREATE TABLE "output_urls" (
  "attempt_ref" UUID NOT NULL,
  "output_index" INTEGER NOT NULL,
  "case_id" UUID NOT NULL,
  "url" TEXT NOT NULL,
  "content_type" TEXT,
  "size_bytes" BIGINT,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "output_urls_pkey" PRIMARY KEY ("attempt_ref", "output_index"),
  CONSTRAINT "output_urls_http" CHECK ("url" ~ '^https?://'),
  CONSTRAINT "output_urls_index" CHECK ("output_index" >= 0)
);

CREATE INDEX "output_urls_expires_at" ON "output_urls"("expires_at");
