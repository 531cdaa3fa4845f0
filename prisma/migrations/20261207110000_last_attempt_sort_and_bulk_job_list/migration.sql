-- The queue sorts by the last attempt, each way round (decision 069). Keyset pagination needs the
-- value on the case row, so `last_attempt_at` is the finish time of the episode's last recovery
-- action that ran to an end (succeeded or unresolved), the one the queue's row shows; the writers
-- that end such an action set it in the same statement, and a new episode clears it.
ALTER TABLE "cases" ADD COLUMN "last_attempt_at" TIMESTAMPTZ(3);

UPDATE "cases" c
SET "last_attempt_at" = l.at
FROM (
  SELECT a.case_id, max(a.finished_at) AS at
  FROM "recovery_actions" a
  JOIN "decisions" d ON d.id = a.decision_id
  JOIN "cases" k ON k.id = a.case_id AND d.episode = k.episode
  WHERE a.status IN ('succeeded', 'unresolved') AND a.finished_at IS NOT NULL
  GROUP BY a.case_id
) l
WHERE c.id = l.case_id;

-- A case never attempted sorts as if attempted at the beginning of time: first when the longest
-- since an attempt comes first, last when the latest comes first. One expression index serves both
-- orders (read backwards for the second), and a partial one the open cases the queue shows unless
-- asked otherwise, as for the age and money orders (20261130000000_console_at_scale);
-- lib/services/case/list-cases.ts spells the expression exactly so, for the planner to match it.
CREATE INDEX "cases_last_attempt_id_idx" ON "cases" ((coalesce("last_attempt_at", '-infinity'::timestamptz)), "id");
CREATE INDEX "cases_open_last_attempt_id" ON "cases" ((coalesce("last_attempt_at", '-infinity'::timestamptz)), "id")
  WHERE "state" <> 'resolved';

-- The bulk jobs page lists a person's jobs, newest first, a page at a time on (created_at, id);
-- an admin's list reads everyone's the same way (decision 069).
CREATE INDEX "bulk_jobs_user_id_created_at_id_idx" ON "bulk_jobs" ("user_id", "created_at", "id");
CREATE INDEX "bulk_jobs_created_at_id_idx" ON "bulk_jobs" ("created_at", "id");
