-- Rule 11: one provider job, one operation; a job's charge settles exactly one hold.
--
-- Where ownership lives: on the attempt, not in a table of its own. The attempt is already the row a
-- hold hangs from, so putting the job's uniqueness on that same row makes the whole guarantee a
-- chain of plain constraints that every writer of attempts meets (set-based seeds included), with
-- no second insert that some code path could forget:
--
--   attempts (provider, provider_job_id) UNIQUE         a job is recorded on at most one attempt,
--                                                       hence belongs to at most one operation
--   holds (attempt_ref) UNIQUE (since recovery_core)    an attempt has at most one hold
--   cases (attempt_ref, provider_job_id)                a case can poll or deliver only the job recorded
--     -> attempts (id, provider_job_id)                 on its own attempt, and a completion settles the
--                                                       hold of the case's attempt
--   cases (attempt_ref, operation_ref)                  ... and that attempt is one of the case's own
--     -> attempts (id, operation_ref)                   operation, never another producer's
--
-- so a job's completion can settle only the one hold of the one attempt that owns it; a second hold
-- can be tied to the job neither through another attempt nor through another case.
-- The provider is copied from the operation by a trigger, so no writer can record an attempt under
-- another provider than its operation's (which would slip a job past the unique key).

ALTER TABLE "attempts" ADD COLUMN "provider" TEXT;
UPDATE "attempts" a SET "provider" = o."provider" FROM "operations" o WHERE o."id" = a."operation_ref";
ALTER TABLE "attempts" ALTER COLUMN "provider" SET NOT NULL;

CREATE FUNCTION "attempts_provider_of_operation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT o."provider" INTO NEW."provider" FROM "operations" o WHERE o."id" = NEW."operation_ref";
  RETURN NEW;
END $$;
CREATE TRIGGER "attempts_provider_of_operation" BEFORE INSERT OR UPDATE OF "operation_ref", "provider" ON "attempts"
  FOR EACH ROW EXECUTE FUNCTION "attempts_provider_of_operation"();

-- Databases from before this rule (the demo data, earlier deployments) may already record one job on
-- several attempts. Nothing tells which producer really created it, so the earliest registration
-- keeps it (it was first to pay for it) and every later one is disowned:
--   * the later attempt forgets the job; the job stays visible in the case's registered facts
--     (registered_job_id, so a replay of that registration is still recognised) and in a
--     `provider_job_disowned` audit event naming the owning case;
--   * an open case of a disowned attempt goes back to `submission_uncertain` (parked, no job): which
--     job it created is uncertain again and a reviewer reconciles it; its pending actions are
--     superseded so no worker polls or delivers another operation's job. Its hold stays held.
--   * a resolved case keeps the job it finished with as history; the case -> attempt key below is
--     therefore NOT VALID: checked on every new write, not on those old rows. It is checked at
--     commit, so a transaction may record the job on the case and its attempt in either order.
CREATE TEMPORARY TABLE "disowned_attempts" AS
SELECT r."id" AS "attempt_ref", r."provider_job_id", oc."id" AS "owner_case_id"
FROM (
  SELECT a."id", a."provider", a."provider_job_id",
         row_number() OVER w AS "rank", first_value(a."operation_ref") OVER w AS "owner_operation"
  FROM "attempts" a
  WHERE a."provider_job_id" IS NOT NULL
  WINDOW w AS (PARTITION BY a."provider", a."provider_job_id" ORDER BY a."created_at", a."id")
) r
LEFT JOIN "cases" oc ON oc."operation_ref" = r."owner_operation"
WHERE r."rank" > 1;

INSERT INTO "audit_events" ("case_id", "episode", "actor_kind", "actor_label", "kind", "before", "after", "evidence")
SELECT c."id", c."episode", 'system', 'migration 20261201000000_job_ownership', 'provider_job_disowned',
       jsonb_build_object('stage', c."stage", 'state', c."state", 'providerJobId', c."provider_job_id",
                          'version', c."version"),
       CASE WHEN c."state" = 'resolved' OR c."attempt_ref" <> d."attempt_ref" THEN NULL
            ELSE jsonb_build_object('stage', 'submission_uncertain', 'state', 'parked', 'providerJobId', NULL,
                                    'version', c."version" + 1) END,
       jsonb_build_object('providerJobId', d."provider_job_id", 'ownerCaseId', d."owner_case_id",
                          'text', 'The job was registered earlier by another operation, which keeps it.')
FROM "disowned_attempts" d
JOIN "attempts" a ON a."id" = d."attempt_ref"
JOIN "cases" c ON c."operation_ref" = a."operation_ref";

UPDATE "recovery_actions" ra
SET "status" = 'superseded', "lease_owner" = NULL, "lease_until" = NULL, "finished_at" = now(),
    "outcome" = 'provider job disowned: it belongs to another operation'
FROM "cases" c
WHERE ra."case_id" = c."id" AND ra."status" IN ('ready', 'claimed') AND c."state" <> 'resolved'
  AND c."attempt_ref" IN (SELECT "attempt_ref" FROM "disowned_attempts");

UPDATE "cases" c
SET "stage" = 'submission_uncertain', "state" = 'parked', "provider_job_id" = NULL,
    "version" = c."version" + 1, "updated_at" = now()
WHERE c."state" <> 'resolved' AND c."attempt_ref" IN (SELECT "attempt_ref" FROM "disowned_attempts");

UPDATE "attempts" a SET "provider_job_id" = NULL
WHERE a."id" IN (SELECT "attempt_ref" FROM "disowned_attempts");

DROP TABLE "disowned_attempts";

CREATE UNIQUE INDEX "attempts_provider_provider_job_id_key" ON "attempts" ("provider", "provider_job_id");
-- The target of the case -> attempt key below (id alone is unique; the pair names the job too).
CREATE UNIQUE INDEX "attempts_id_provider_job_id_key" ON "attempts" ("id", "provider_job_id");
ALTER TABLE "cases" ADD CONSTRAINT "cases_job_is_its_attempts_fkey"
  FOREIGN KEY ("attempt_ref", "provider_job_id") REFERENCES "attempts" ("id", "provider_job_id")
  DEFERRABLE INITIALLY DEFERRED NOT VALID;
CREATE UNIQUE INDEX "attempts_id_operation_ref_key" ON "attempts" ("id", "operation_ref");
ALTER TABLE "cases" ADD CONSTRAINT "cases_attempt_of_its_operation_fkey"
  FOREIGN KEY ("attempt_ref", "operation_ref") REFERENCES "attempts" ("id", "operation_ref");
