-- A video retention deleted is marked in the row at once (deleted_at, in the redaction's
-- transaction); its file is removed after that commits, and until this migration a file storage
-- refused to remove was only logged: the video stayed on disk past the policy with nothing due to
-- try again. Now the row also says when its file was removed, and each run first tries again for
-- every file still waiting (docs/decisions/033-retention.md).
ALTER TABLE "assets" ADD COLUMN "file_removed_at" TIMESTAMPTZ(3);

-- Files deleted before this column existed were removed or logged then; nothing tells which.
UPDATE "assets" SET "file_removed_at" = "deleted_at" WHERE "deleted_at" IS NOT NULL;

CREATE INDEX "assets_file_removal_due" ON "assets" ("deleted_at")
  WHERE "deleted_at" IS NOT NULL AND "file_removed_at" IS NULL;
