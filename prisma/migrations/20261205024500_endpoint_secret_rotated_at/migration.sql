-- When a notification endpoint's signing secret was last replaced (null: never, it is still the one
-- issued with the endpoint). `updated_at` moves with a URL change too, so it cannot say this; a
-- producer reading its endpoint through the API sees both dates. The app role's grants on the table
-- cover the new column.
ALTER TABLE "notification_endpoints" ADD COLUMN "secret_rotated_at" TIMESTAMPTZ(3);
