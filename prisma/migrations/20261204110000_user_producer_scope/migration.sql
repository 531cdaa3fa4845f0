-- Limiting a person to some producers (docs/decisions/035-user-producer-scope.md).
--
-- An agency that runs several shops gives its people the shops they work for: an empty list is
-- every producer (as before), a non-empty one is exactly those. Read on every request with the
-- user's roles, so a change takes effect on the next request without ending sessions.
ALTER TABLE "users" ADD COLUMN "producer_scope" TEXT[] NOT NULL DEFAULT '{}';

-- An admin acts for the whole deployment (users, keys, settings), so a scoped admin would be a
-- contradiction: the two are refused together here as well as by the services.
ALTER TABLE "users" ADD CONSTRAINT "users_admin_unscoped"
  CHECK (NOT ('admin'::"Role" = ANY ("roles")) OR cardinality("producer_scope") = 0);
