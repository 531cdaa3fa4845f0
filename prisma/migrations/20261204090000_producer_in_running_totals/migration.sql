-- The running totals by producer (docs/decisions/034-producer-in-running-totals.md).
--
-- An agency that runs several shops reads the overview and finance figures of some of them, and
-- user scoping will limit a person to some producers: neither can scan a million rows. So every
-- figure row now carries the producer it belongs to, one more dimension of the same totals:
--   case figures (open_cases, case_held, resolved_held)  cases.producer
--   hold figures (holds, held_holds) and the exposure    holds.producer (the same as its case's: a
--                                                        hold is reserved by the case's producer, and
--                                                        a permit's hold has no case yet)
--   ledger figures (ledger_held, overage)                the producer of the entry's hold
-- Every lookup is one the triggers made already (the row itself, or the hold a ledger entry joins),
-- so the triggers read no more rows than before; a figure group splits into one per producer.

ALTER TABLE "stat_totals" ADD COLUMN "producer" TEXT;
ALTER TABLE "stat_deltas" ADD COLUMN "producer" TEXT;

DROP INDEX "stat_totals_figure_stage_currency_provider_model_hold_status_partial_hour_key";
CREATE UNIQUE INDEX "stat_totals_dimensions_key"
  ON "stat_totals"("figure", "stage", "currency", "provider", "model", "hold_status", "partial", "hour", "producer")
  NULLS NOT DISTINCT;

-- The figure functions return one more column, so they are dropped and created again (their callers
-- below are replaced in the same transaction). Each takes the producer as its last argument.
DROP FUNCTION "stat_hold_row_figures"(holds, INTEGER);
DROP FUNCTION "stat_case_row_exposure"(cases, INTEGER);
DROP FUNCTION "stat_case_figures"("Stage", "CaseState", TIMESTAMPTZ, TEXT, BIGINT, INTEGER);
DROP FUNCTION "stat_hold_figures"(TEXT, TEXT, TEXT, "HoldStatus", BIGINT, BIGINT, BIGINT, TIMESTAMPTZ, INTEGER);
DROP FUNCTION "stat_exposure_figure"(UUID, "Stage", "CaseState", UUID, "HoldStatus", TEXT, BIGINT, TIMESTAMPTZ, INTEGER);
DROP FUNCTION "stat_ledger_figures"("LedgerEntryKind", BIGINT, TIMESTAMPTZ, TEXT, TEXT, TEXT, INTEGER);

CREATE FUNCTION "stat_case_figures"(stage "Stage", state "CaseState", opened_at TIMESTAMPTZ, currency TEXT,
                                    held_micros BIGINT, sign INTEGER, producer TEXT)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'open_cases'::text, $1, NULL::text, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour, $7,
         $6::bigint, 0::bigint, 0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  WHERE $2 <> 'resolved'
  UNION ALL
  SELECT 'case_held', $1, $4, NULL, NULL, NULL, NULL, NULL, $7, $6, $6 * $5, 0, 0
  WHERE $5 <> 0
  UNION ALL
  SELECT 'resolved_held', $1, $4, NULL, NULL, NULL, NULL, NULL, $7, $6, $6 * $5, 0, 0
  WHERE $2 = 'resolved' AND $5 > 0
$$;

CREATE FUNCTION "stat_hold_figures"(currency TEXT, provider TEXT, model TEXT, status "HoldStatus", amount_micros BIGINT,
                                    settled_micros BIGINT, released_micros BIGINT, created_at TIMESTAMPTZ, sign INTEGER,
                                    producer TEXT)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'holds'::text, NULL::"Stage", $1, $2, $3, $4, $4 = 'settled' AND $7 > 0, NULL::timestamptz, $10,
         $9::bigint, $9 * $5, $9 * $6, $9 * $7
  UNION ALL
  SELECT 'held_holds', NULL, $1, NULL, NULL, NULL, NULL, b.hour, $10, $9, $9 * $5, 0, 0
  FROM (VALUES (date_trunc('hour', $8, 'UTC')), (NULL)) AS b(hour)
  WHERE $4 = 'held'
$$;

CREATE FUNCTION "stat_exposure_figure"(case_attempt_ref UUID, stage "Stage", state "CaseState", hold_attempt_ref UUID,
                                       status "HoldStatus", currency TEXT, amount_micros BIGINT, created_at TIMESTAMPTZ,
                                       sign INTEGER, producer TEXT)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'exposure'::text, NULL::"Stage", $6, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour, $10,
         $9::bigint, $9 * $7, 0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $8, 'UTC')), (NULL)) AS b(hour)
  WHERE $5 = 'held' AND $4 = $1 AND $2 = 'submission_uncertain' AND $3 <> 'resolved'
$$;

CREATE FUNCTION "stat_ledger_figures"(kind "LedgerEntryKind", amount_micros BIGINT, created_at TIMESTAMPTZ,
                                      currency TEXT, provider TEXT, model TEXT, sign INTEGER, producer TEXT)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'ledger_held'::text, NULL::"Stage", $4, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour, $8,
         $7::bigint, $7 * CASE WHEN $1 = 'reserve' THEN $2 WHEN $1 IN ('settle', 'release') THEN -$2 ELSE 0 END,
         0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  UNION ALL
  SELECT 'overage', NULL, $4, $5, $6, NULL, NULL, NULL, $8, $7, $7 * $2, 0, 0
  WHERE $1 = 'overage'
$$;

-- Lookups by key as in 20261130020000_stat_trigger_lookups_by_key and 20261202030000_send_permits.
CREATE FUNCTION "stat_hold_row_figures"(hold_row holds, direction INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT f.*
  FROM (SELECT o.provider, o.model FROM attempts a JOIN operations o ON o.id = a.operation_ref
        WHERE a.id = hold_row.attempt_ref OFFSET 0) p
  LEFT JOIN LATERAL (SELECT c.attempt_ref, c.stage, c.state FROM cases c WHERE c.id = hold_row.case_id OFFSET 0) c ON TRUE
  CROSS JOIN LATERAL (
    SELECT * FROM stat_hold_figures(hold_row.currency, p.provider, p.model, hold_row.status, hold_row.amount_micros,
                                    hold_row.settled_micros, hold_row.released_micros, hold_row.created_at, direction,
                                    hold_row.producer)
    UNION ALL
    SELECT * FROM stat_exposure_figure(c.attempt_ref, c.stage, c.state, hold_row.attempt_ref, hold_row.status,
                                       hold_row.currency, hold_row.amount_micros, hold_row.created_at, direction,
                                       hold_row.producer)
    WHERE c.attempt_ref IS NOT NULL
  ) f
$$;

CREATE FUNCTION "stat_case_row_exposure"(case_row cases, direction INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "producer" TEXT, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT f.*
  FROM (SELECT h.attempt_ref, h.status, h.currency, h.amount_micros, h.created_at, h.producer
        FROM holds h WHERE h.attempt_ref = case_row.attempt_ref OFFSET 0) h
  CROSS JOIN LATERAL stat_exposure_figure(case_row.attempt_ref, case_row.stage, case_row.state, h.attempt_ref,
                                          h.status, h.currency, h.amount_micros, h.created_at, direction, h.producer) f
$$;

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
    -- Most updates (a claim, a heartbeat, a reschedule) change nothing a figure reads. A set
    -- difference, not a join: transition tables have no statistics.
    IF NOT EXISTS (
      SELECT o.id, o.stage, o.state = 'resolved', o.opened_at, o.currency, o.held_micros, o.attempt_ref, o.producer
      FROM old_rows o
      EXCEPT
      SELECT n.id, n.stage, n.state = 'resolved', n.opened_at, n.currency, n.held_micros, n.attempt_ref, n.producer
      FROM new_rows n
    ) THEN
      RETURN NULL;
    END IF;
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows c
        CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, -1, c.producer) f
      UNION ALL
      SELECT f.* FROM new_rows c
        CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1, c.producer) f
      UNION ALL
      SELECT f.* FROM old_rows c CROSS JOIN LATERAL stat_case_row_exposure(c, -1) f
      UNION ALL
      SELECT f.* FROM new_rows c CROSS JOIN LATERAL stat_case_row_exposure(c, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "stat_holds_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, 1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, -1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, -1) f
      UNION ALL
      SELECT f.* FROM new_rows h CROSS JOIN LATERAL stat_hold_row_figures(h, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "stat_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, 1,
                                             h.producer) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, -1,
                                             h.producer) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                             micros, settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
           sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, -1,
                                               h.producer) f
      UNION ALL
      SELECT f.* FROM new_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, 1,
                                               h.producer) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION "stat_rebuild"() RETURNS void LANGUAGE plpgsql SET work_mem = '256MB' AS $$
BEGIN
  LOCK TABLE "cases", "holds", "ledger_entries" IN SHARE MODE;
  LOCK TABLE "stat_totals", "stat_deltas" IN EXCLUSIVE MODE;
  DELETE FROM stat_deltas;
  DELETE FROM stat_totals;
  INSERT INTO stat_totals (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                           micros, settled_micros, released_micros)
  SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
         sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
  FROM (
    SELECT f.* FROM cases c
      CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1, c.producer) f
    UNION ALL
    SELECT f.* FROM holds h JOIN attempts a ON a.id = h.attempt_ref JOIN operations o ON o.id = a.operation_ref
      CROSS JOIN LATERAL stat_hold_figures(h.currency, o.provider, o.model, h.status, h.amount_micros,
                                           h.settled_micros, h.released_micros, h.created_at, 1, h.producer) f
    UNION ALL
    SELECT f.* FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
      CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                              h.amount_micros, h.created_at, 1, h.producer) f
    UNION ALL
    SELECT f.* FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
      JOIN operations o ON o.id = a.operation_ref
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, o.provider, o.model, 1,
                                             h.producer) f
  ) f
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
  HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
END;
$$;

-- Existing totals have no producer: compute them again from the rows (writers wait while it runs).
SELECT "stat_rebuild"();
