-- The running-total triggers look up a row's case (hold triggers) or hold (case updates) by key.
--
-- The exposure figure asks for an open `submission_uncertain` case and a `held` hold. Inlined into
-- a trigger's join, those conditions reached the lookup of the other row, and a session that had
-- planned the trigger while the tables looked empty (plans are kept per session) judged a scan of
-- the partial index of open cases of one stage, or of held holds, as cheap as the primary key, and
-- kept that plan while the table grew. Measured in the ingest burst: every registration read all
-- open cases of the stage through `cases_open_stage_opened_at_id`, 1,600 rows and 8 ms a
-- registration after 10,000, and PostgreSQL spent twice the raw statement's CPU per registration.
-- A subquery with OFFSET 0 takes no conditions from outside, so the lookup can only be by key.
-- tests/integration/stat-trigger-plans.test.ts shows it.

-- What one hold contributes with its case: every figure of stat_hold_figures and the exposure.
CREATE FUNCTION "stat_hold_row_figures"(hold_row holds, direction INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT f.*
  FROM (SELECT c.provider, c.model, c.attempt_ref, c.stage, c.state FROM cases c WHERE c.id = hold_row.case_id OFFSET 0) c
  CROSS JOIN LATERAL (
    SELECT * FROM stat_hold_figures(hold_row.currency, c.provider, c.model, hold_row.status, hold_row.amount_micros,
                                    hold_row.settled_micros, hold_row.released_micros, hold_row.created_at, direction)
    UNION ALL
    SELECT * FROM stat_exposure_figure(c.attempt_ref, c.stage, c.state, hold_row.attempt_ref, hold_row.status,
                                       hold_row.currency, hold_row.amount_micros, hold_row.created_at, direction)
  ) f
$$;

-- What an updated case contributes to the exposure, with its current attempt's hold.
CREATE FUNCTION "stat_case_row_exposure"(case_row cases, direction INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT f.*
  FROM (SELECT h.attempt_ref, h.status, h.currency, h.amount_micros, h.created_at
        FROM holds h WHERE h.attempt_ref = case_row.attempt_ref OFFSET 0) h
  CROSS JOIN LATERAL stat_exposure_figure(case_row.attempt_ref, case_row.stage, case_row.state, h.attempt_ref,
                                          h.status, h.currency, h.amount_micros, h.created_at, direction) f
$$;

CREATE OR REPLACE FUNCTION "stat_holds_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, 1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, -1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, -1) f
      UNION ALL
      SELECT f.* FROM new_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "stat_cases_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, -1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    -- Most updates (a claim, a heartbeat, a reschedule) change nothing a figure reads. A set
    -- difference, not a join: transition tables have no statistics.
    IF NOT EXISTS (
      SELECT o.id, o.stage, o.state = 'resolved', o.opened_at, o.currency, o.held_micros, o.attempt_ref
      FROM old_rows o
      EXCEPT
      SELECT n.id, n.stage, n.state = 'resolved', n.opened_at, n.currency, n.held_micros, n.attempt_ref
      FROM new_rows n
    ) THEN
      RETURN NULL;
    END IF;
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, -1) f
      UNION ALL
      SELECT f.* FROM new_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1) f
      UNION ALL
      SELECT f.* FROM old_rows c CROSS JOIN LATERAL stat_case_row_exposure(c, -1) f
      UNION ALL
      SELECT f.* FROM new_rows c CROSS JOIN LATERAL stat_case_row_exposure(c, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;
