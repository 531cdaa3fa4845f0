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

-- A person limited to a small shop on a large deployment reads its open cases in the queue's order:
-- without a producer-led index, that walks every producer's open cases until a page of the shop's
-- is found. `producer IS NOT NULL` (always true: the column is NOT NULL) is what a producer condition
-- proves and a read without one does not, so only reads of some producers' cases consider it and
-- every other read keeps its own index.
CREATE INDEX "cases_open_producer_opened_at_id" ON "cases" ("producer", "opened_at", "id")
  WHERE "state" <> 'resolved' AND "producer" IS NOT NULL;
