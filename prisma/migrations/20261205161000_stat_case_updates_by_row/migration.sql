-- The running totals' case trigger on UPDATE becomes a row trigger whose WHEN names the columns a
-- figure reads (docs/decisions/060-claim-and-finish-write-less.md). The statement trigger it replaces
-- ran on every case update, captured both transition tables and compared them before returning:
-- a claim (ready to claimed) moves no figure yet paid for all of that on every claim statement, and a
-- finish computed every figure of the row twice (old and new) and looked up its hold twice to cancel
-- an exposure that only a case open in `submission_uncertain` can have. Now the WHEN is evaluated
-- by the executor without calling any function, so a claim, a heartbeat or a reschedule costs
-- nothing here; a change that does move a figure writes the row's deltas, and reads its hold only
-- when the case is, or was, an open submission_uncertain one (the only case stat_exposure_figure
-- counts). INSERT and DELETE stay statement triggers (many rows at once, every row counts).

CREATE FUNCTION "stat_case_row_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                           micros, settled_micros, released_micros)
  SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
         sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
  FROM (
    SELECT f.* FROM stat_case_figures(OLD.stage, OLD.state, OLD.opened_at, OLD.currency, OLD.held_micros, -1,
                                      OLD.producer) f
    UNION ALL
    SELECT f.* FROM stat_case_figures(NEW.stage, NEW.state, NEW.opened_at, NEW.currency, NEW.held_micros, 1,
                                      NEW.producer) f
    UNION ALL
    SELECT f.* FROM stat_case_row_exposure(OLD, -1) f
    WHERE OLD.stage = 'submission_uncertain' AND OLD.state <> 'resolved'
    UNION ALL
    SELECT f.* FROM stat_case_row_exposure(NEW, 1) f
    WHERE NEW.stage = 'submission_uncertain' AND NEW.state <> 'resolved'
  ) f
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  RETURN NULL;
END;
$$;

DROP TRIGGER "stat_cases_updated" ON "cases";
CREATE TRIGGER "stat_cases_updated" AFTER UPDATE ON "cases" FOR EACH ROW
  WHEN (OLD.stage IS DISTINCT FROM NEW.stage
        OR (OLD.state = 'resolved') IS DISTINCT FROM (NEW.state = 'resolved')
        OR OLD.opened_at IS DISTINCT FROM NEW.opened_at
        OR OLD.currency IS DISTINCT FROM NEW.currency
        OR OLD.held_micros IS DISTINCT FROM NEW.held_micros
        OR OLD.attempt_ref IS DISTINCT FROM NEW.attempt_ref
        OR OLD.producer IS DISTINCT FROM NEW.producer)
  EXECUTE FUNCTION "stat_case_row_changed"();

-- The statement function keeps INSERT and DELETE only.
CREATE OR REPLACE FUNCTION "stat_cases_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows c
      CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1, c.producer) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows c
      CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, -1, c.producer) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSE
    RAISE EXCEPTION 'stat_cases_changed is for INSERT and DELETE; updates are counted by stat_case_row_changed';
  END IF;
  RETURN NULL;
END;
$$;
