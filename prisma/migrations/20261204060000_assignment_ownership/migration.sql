-- Console-wide settings an admin changes: one row. Whether assignment means ownership (issue 19,
-- part 3): off, an assignee is a label; on, only the assignee or an admin decides an assigned case.
CREATE TABLE "console_settings" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "assignment_is_ownership" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by_id" UUID,
    CONSTRAINT "console_settings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "console_settings_one_row" CHECK ("id")
);
INSERT INTO "console_settings" ("id") VALUES (true);
