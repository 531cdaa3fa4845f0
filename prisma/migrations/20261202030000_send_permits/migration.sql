-- Send permits (DESIGN 6a): the write-ahead marker a producer asks for before each paid create.
-- A permit's attempt and hold exist from the moment it is issued (the money is reserved then); its
-- case exists only once it parks (an unknown outcome, a failure, or a deadline with no report).
CREATE TYPE "PermitStatus" AS ENUM ('live', 'accepted', 'rejected', 'uncertain', 'completed', 'failed');

CREATE TABLE "send_permits" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "producer" TEXT NOT NULL,
    "operation_ref" UUID NOT NULL,
    "attempt_ref" UUID NOT NULL,
    "hold_ref" UUID NOT NULL,
    -- The operation's permits in order, from 1: the fencing token every report must carry.
    "token" INTEGER NOT NULL,
    "status" "PermitStatus" NOT NULL DEFAULT 'live',
    "send_deadline" TIMESTAMPTZ(3) NOT NULL,
    "provider_job_id" TEXT,
    "case_ref" UUID,
    "last_report" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "reported_at" TIMESTAMPTZ(3),

    CONSTRAINT "send_permits_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "send_permits_operation_ref_fkey" FOREIGN KEY ("operation_ref") REFERENCES "operations"("id"),
    CONSTRAINT "send_permits_attempt_ref_fkey" FOREIGN KEY ("attempt_ref") REFERENCES "attempts"("id"),
    CONSTRAINT "send_permits_hold_ref_fkey" FOREIGN KEY ("hold_ref") REFERENCES "holds"("id"),
    CONSTRAINT "send_permits_case_ref_fkey" FOREIGN KEY ("case_ref") REFERENCES "cases"("id")
);

CREATE UNIQUE INDEX "send_permits_attempt_ref_key" ON "send_permits"("attempt_ref");
CREATE UNIQUE INDEX "send_permits_hold_ref_key" ON "send_permits"("hold_ref");
CREATE UNIQUE INDEX "send_permits_operation_ref_token_key" ON "send_permits"("operation_ref", "token");
-- At most one permit of an operation is open (not refused by the provider): the constraint, not a read.
CREATE UNIQUE INDEX "send_permits_one_open_per_operation" ON "send_permits"("operation_ref") WHERE "status" <> 'rejected';
-- The deadline sweep, and the overview's in-flight figures.
CREATE INDEX "send_permits_live_deadline" ON "send_permits"("send_deadline") WHERE "status" = 'live';
CREATE INDEX "send_permits_in_flight" ON "send_permits"("created_at") WHERE "status" IN ('live', 'accepted');

-- A permit's hold is reserved before there is a case; it joins one when the permit parks.
ALTER TABLE "holds" ALTER COLUMN "case_id" DROP NOT NULL;

-- The running totals read a hold's provider and model from its attempt's operation (which every hold
-- has) instead of its case (which a permit's hold may not have yet): the same values, as a case
-- copies them from its operation. Lookups by key, as in 20261130020000_stat_trigger_lookups_by_key.
CREATE OR REPLACE FUNCTION "stat_hold_row_figures"(hold_row holds, direction INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT f.*
  FROM (SELECT o.provider, o.model FROM attempts a JOIN operations o ON o.id = a.operation_ref
        WHERE a.id = hold_row.attempt_ref OFFSET 0) p
  LEFT JOIN LATERAL (SELECT c.attempt_ref, c.stage, c.state FROM cases c WHERE c.id = hold_row.case_id OFFSET 0) c ON TRUE
  CROSS JOIN LATERAL (
    SELECT * FROM stat_hold_figures(hold_row.currency, p.provider, p.model, hold_row.status, hold_row.amount_micros,
                                    hold_row.settled_micros, hold_row.released_micros, hold_row.created_at, direction)
    UNION ALL
    SELECT * FROM stat_exposure_figure(c.attempt_ref, c.stage, c.state, hold_row.attempt_ref, hold_row.status,
                                       hold_row.currency, hold_row.amount_micros, hold_row.created_at, direction)
    WHERE c.attempt_ref IS NOT NULL
  ) f
$$;

CREATE FUNCTION "stat_hold_product"(hold_attempt_ref UUID)
RETURNS TABLE ("provider" TEXT, "model" TEXT) LANGUAGE sql STABLE AS $$
  SELECT o.provider, o.model FROM attempts a JOIN operations o ON o.id = a.operation_ref
  WHERE a.id = hold_attempt_ref OFFSET 0
$$;

-- The ledger's figures, with a hold's provider and model from its operation. Ledger entries are
-- append-only (20261202000000_ledger_append_only); an owner who moves entries with that trigger off
-- (test data only) still keeps the totals right through the update and delete branches.
CREATE OR REPLACE FUNCTION "stat_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, 1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, -1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, -1) f
      UNION ALL
      SELECT f.* FROM new_rows e JOIN holds h ON h.id = e.hold_ref CROSS JOIN LATERAL stat_hold_product(h.attempt_ref) p
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, p.provider, p.model, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
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
  INSERT INTO stat_totals (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                           settled_micros, released_micros)
  SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
         sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
  FROM (
    SELECT f.* FROM cases c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1) f
    UNION ALL
    SELECT f.* FROM holds h JOIN attempts a ON a.id = h.attempt_ref JOIN operations o ON o.id = a.operation_ref
      CROSS JOIN LATERAL stat_hold_figures(h.currency, o.provider, o.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, 1) f
    UNION ALL
    SELECT f.* FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
      CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, 1) f
    UNION ALL
    SELECT f.* FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
      JOIN operations o ON o.id = a.operation_ref
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, o.provider, o.model, 1) f
  ) f
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
END;
$$;
