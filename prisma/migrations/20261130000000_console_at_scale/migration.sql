-- The console's figures at a million cases (docs/performance.md, section 5).
--
-- Counting a million rows for every overview or finance page costs hundreds of milliseconds, so the
-- figures are kept as running totals. Triggers on cases, holds and ledger_entries append signed
-- deltas in the transaction of each change (inserts only: concurrent writers never wait on a
-- shared counter row); readers add totals and pending deltas; folding moves deltas into totals
-- now and then. Every figure is defined once, by the stat_*_figures functions below, which the
-- triggers and stat_rebuild() share.

-- CreateTable
CREATE TABLE "stat_totals" (
    "id" BIGSERIAL NOT NULL,
    "figure" TEXT NOT NULL,
    "stage" "Stage",
    "currency" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "hold_status" "HoldStatus",
    "partial" BOOLEAN,
    "hour" TIMESTAMPTZ(3),
    "count" BIGINT NOT NULL DEFAULT 0,
    "micros" BIGINT NOT NULL DEFAULT 0,
    "settled_micros" BIGINT NOT NULL DEFAULT 0,
    "released_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "stat_totals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stat_deltas" (
    "id" BIGSERIAL NOT NULL,
    "figure" TEXT NOT NULL,
    "stage" "Stage",
    "currency" TEXT,
    "provider" TEXT,
    "model" TEXT,
    "hold_status" "HoldStatus",
    "partial" BOOLEAN,
    "hour" TIMESTAMPTZ(3),
    "count" BIGINT NOT NULL DEFAULT 0,
    "micros" BIGINT NOT NULL DEFAULT 0,
    "settled_micros" BIGINT NOT NULL DEFAULT 0,
    "released_micros" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "stat_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
-- One total per figure and dimensions; absent dimensions are NULL and still name one group.
CREATE UNIQUE INDEX "stat_totals_figure_stage_currency_provider_model_hold_status_partial_hour_key"
  ON "stat_totals"("figure", "stage", "currency", "provider", "model", "hold_status", "partial", "hour") NULLS NOT DISTINCT;

-- The queue's default views are open cases, oldest first or largest first; most rows of a mature
-- queue are resolved, so the open ones get indexes of their own (also the overview's oldest-per-stage
-- and recent-uncertain lookups).
CREATE INDEX "cases_open_opened_at_id" ON "cases"("opened_at", "id") WHERE "state" <> 'resolved';
CREATE INDEX "cases_open_held_micros_id" ON "cases"("held_micros", "id") WHERE "state" <> 'resolved';
CREATE INDEX "cases_open_stage_opened_at_id" ON "cases"("stage", "opened_at", "id") WHERE "state" <> 'resolved';
-- Finance aging and exposure: the oldest open hold of a currency, and open holds within an hour.
CREATE INDEX "holds_held_currency_created_at" ON "holds"("currency", "created_at") WHERE "status" = 'held';
-- Review latency (overview) pairs each episode's first decision with the moment the episode opened.
-- The decision keeps that moment itself, so the last day's decisions are read without looking up
-- each one's case. Decisions of earlier episodes, whose opening the case no longer holds, stay NULL.
ALTER TABLE "decisions" ADD COLUMN "case_opened_at" TIMESTAMPTZ(3);
UPDATE "decisions" d SET "case_opened_at" = c."opened_at"
FROM "cases" c WHERE c."id" = d."case_id" AND c."episode" = d."episode";
CREATE FUNCTION "decisions_case_opened_at"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT c.opened_at INTO NEW.case_opened_at FROM cases c WHERE c.id = NEW.case_id AND c.episode = NEW.episode;
  RETURN NEW;
END;
$$;
CREATE TRIGGER "decisions_case_opened_at" BEFORE INSERT ON "decisions"
  FOR EACH ROW EXECUTE FUNCTION "decisions_case_opened_at"();
CREATE INDEX "decisions_created_at_idx" ON "decisions"("created_at");
-- Readers of an hourly figure want its totals (hour NULL) and its last hours or days.
CREATE INDEX "stat_totals_figure_hour" ON "stat_totals"("figure", "hour");

-- The same fingerprint rule, checked about seven times faster: a counted repetition ({64}) costs
-- PostgreSQL's regular expression engine about 10 µs a row, a length test plus an open repetition
-- under 2 µs. Every registration pays it, and a bulk import of a million operations 8 seconds.
ALTER TABLE "operations" DROP CONSTRAINT "operations_fingerprint_format";
ALTER TABLE "operations" ADD CONSTRAINT "operations_fingerprint_format"
  CHECK (length("request_fingerprint") = 71 AND "request_fingerprint" ~ '^sha256:[0-9a-f]*$');

-- The figure functions take columns rather than whole rows: inlined into the triggers' and the
-- rebuild's queries, they cost a few expressions per row. Figures kept by UTC hour (hour set) also
-- keep their total over all hours (hour NULL), so a reader needs the total plus the recent hours
-- only: an age boundary is then completed from the rows of the one hour that contains it.

-- What one case contributes: open cases by stage and UTC hour opened; money on cases by stage and
-- currency (resolved cases included: their holds may still wait for finance).
CREATE FUNCTION "stat_case_figures"(stage "Stage", state "CaseState", opened_at TIMESTAMPTZ, currency TEXT,
                                    held_micros BIGINT, sign INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'open_cases'::text, $1, NULL::text, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour,
         $6::bigint, 0::bigint, 0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  WHERE $2 <> 'resolved'
  UNION ALL
  SELECT 'case_held', $1, $4, NULL, NULL, NULL, NULL, NULL, $6, $6 * $5, 0, 0
  WHERE $5 <> 0
$$;

-- What one hold contributes: every hold by currency, provider (of its case), model and status (with
-- what it booked), and open holds by currency and UTC hour reserved.
CREATE FUNCTION "stat_hold_figures"(currency TEXT, provider TEXT, model TEXT, status "HoldStatus", amount_micros BIGINT,
                                    settled_micros BIGINT, released_micros BIGINT, created_at TIMESTAMPTZ, sign INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'holds'::text, NULL::"Stage", $1, $2, $3, $4, $4 = 'settled' AND $7 > 0, NULL::timestamptz, $9::bigint,
         $9 * $5, $9 * $6, $9 * $7
  UNION ALL
  SELECT 'held_holds', NULL, $1, NULL, NULL, NULL, NULL, b.hour, $9, $9 * $5, 0, 0
  FROM (VALUES (date_trunc('hour', $8, 'UTC')), (NULL)) AS b(hour)
  WHERE $4 = 'held'
$$;

-- Exposure (rule 6): the open hold of a case's current attempt while the case is an open uncertain
-- submission, by currency and UTC hour reserved. It depends on a case and a hold together, so the
-- hold triggers judge hold changes against the case as it is, and the case trigger judges case
-- updates against the hold as it is. A case insert contributes nothing (its hold can only follow
-- it), which keeps a statement that inserts a case and its hold together counting the pair once.
CREATE FUNCTION "stat_exposure_figure"(case_attempt_ref UUID, stage "Stage", state "CaseState", hold_attempt_ref UUID,
                                       status "HoldStatus", currency TEXT, amount_micros BIGINT, created_at TIMESTAMPTZ,
                                       sign INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'exposure'::text, NULL::"Stage", $6, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour,
         $9::bigint, $9 * $7, 0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $8, 'UTC')), (NULL)) AS b(hour)
  WHERE $5 = 'held' AND $4 = $1 AND $2 = 'submission_uncertain' AND $3 <> 'resolved'
$$;

-- What one ledger entry contributes: money held by currency (of its hold) and UTC hour (reserve adds,
-- settle and release take away), and flagged overage by currency, provider and model.
CREATE FUNCTION "stat_ledger_figures"(kind "LedgerEntryKind", amount_micros BIGINT, created_at TIMESTAMPTZ,
                                      currency TEXT, provider TEXT, model TEXT, sign INTEGER)
RETURNS TABLE ("figure" TEXT, "stage" "Stage", "currency" TEXT, "provider" TEXT, "model" TEXT,
               "hold_status" "HoldStatus", "partial" BOOLEAN, "hour" TIMESTAMPTZ, "count" BIGINT,
               "micros" BIGINT, "settled_micros" BIGINT, "released_micros" BIGINT)
LANGUAGE sql STABLE AS $$
  SELECT 'ledger_held'::text, NULL::"Stage", $4, NULL::text, NULL::text, NULL::"HoldStatus", NULL::boolean, b.hour,
         $7::bigint, $7 * CASE WHEN $1 = 'reserve' THEN $2 WHEN $1 IN ('settle', 'release') THEN -$2 ELSE 0 END,
         0::bigint, 0::bigint
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  UNION ALL
  SELECT 'overage', NULL, $4, $5, $6, NULL, NULL, NULL, $7, $7 * $2, 0, 0
  WHERE $1 = 'overage'
$$;

-- The triggers: one per event (transition tables allow no more), one function per table. Rows
-- that cancel out (an update touching nothing a figure reads) write nothing.
CREATE FUNCTION "stat_cases_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, -1) f
      UNION ALL
      SELECT f.* FROM new_rows c CROSS JOIN LATERAL stat_case_figures(c.stage, c.state, c.opened_at, c.currency, c.held_micros, 1) f
      UNION ALL
      SELECT f.* FROM old_rows c JOIN holds h ON h.attempt_ref = c.attempt_ref
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, -1) f
      UNION ALL
      SELECT f.* FROM new_rows c JOIN holds h ON h.attempt_ref = c.attempt_ref
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION "stat_holds_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM new_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_hold_figures(h.currency, c.provider, c.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, 1) f
      UNION ALL
      SELECT f.* FROM new_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_hold_figures(h.currency, c.provider, c.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, -1) f
      UNION ALL
      SELECT f.* FROM old_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, -1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_hold_figures(h.currency, c.provider, c.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, -1) f
      UNION ALL
      SELECT f.* FROM new_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_hold_figures(h.currency, c.provider, c.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, 1) f
      UNION ALL
      SELECT f.* FROM old_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, -1) f
      UNION ALL
      SELECT f.* FROM new_rows h JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION "stat_ledger_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM new_rows e JOIN holds h ON h.id = e.hold_ref JOIN cases c ON c.id = h.case_id
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, c.provider, c.model, 1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM old_rows e JOIN holds h ON h.id = e.hold_ref JOIN cases c ON c.id = h.case_id
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, c.provider, c.model, -1) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
  ELSE
    INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, count, micros,
                             settled_micros, released_micros)
    SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, sum(f.count),
           sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
    FROM (
      SELECT f.* FROM old_rows e JOIN holds h ON h.id = e.hold_ref JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, c.provider, c.model, -1) f
      UNION ALL
      SELECT f.* FROM new_rows e JOIN holds h ON h.id = e.hold_ref JOIN cases c ON c.id = h.case_id
        CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, c.provider, c.model, 1) f
    ) f
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "stat_cases_inserted" AFTER INSERT ON "cases"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_cases_changed"();
CREATE TRIGGER "stat_cases_updated" AFTER UPDATE ON "cases"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_cases_changed"();
CREATE TRIGGER "stat_cases_deleted" AFTER DELETE ON "cases"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_cases_changed"();
CREATE TRIGGER "stat_holds_inserted" AFTER INSERT ON "holds"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_holds_changed"();
CREATE TRIGGER "stat_holds_updated" AFTER UPDATE ON "holds"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_holds_changed"();
CREATE TRIGGER "stat_holds_deleted" AFTER DELETE ON "holds"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_holds_changed"();
CREATE TRIGGER "stat_ledger_inserted" AFTER INSERT ON "ledger_entries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_ledger_changed"();
CREATE TRIGGER "stat_ledger_updated" AFTER UPDATE ON "ledger_entries"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_ledger_changed"();
CREATE TRIGGER "stat_ledger_deleted" AFTER DELETE ON "ledger_entries"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "stat_ledger_changed"();

-- Recomputes every total from the rows themselves: the backfill below, after a bulk load made with
-- triggers off, or to prove the running totals right. Writers wait while it runs.
CREATE FUNCTION "stat_rebuild"() RETURNS void LANGUAGE plpgsql SET work_mem = '256MB' AS $$
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
    SELECT f.* FROM holds h JOIN cases c ON c.id = h.case_id
      CROSS JOIN LATERAL stat_hold_figures(h.currency, c.provider, c.model, h.status, h.amount_micros,
                                                 h.settled_micros, h.released_micros, h.created_at, 1) f
    UNION ALL
    SELECT f.* FROM holds h JOIN cases c ON c.id = h.case_id AND c.attempt_ref = h.attempt_ref
      CROSS JOIN LATERAL stat_exposure_figure(c.attempt_ref, c.stage, c.state, h.attempt_ref, h.status, h.currency,
                                                    h.amount_micros, h.created_at, 1) f
    UNION ALL
    SELECT f.* FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN cases c ON c.id = h.case_id
      CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, c.provider, c.model, 1) f
  ) f
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
  HAVING sum(f.count) <> 0 OR sum(f.micros) <> 0 OR sum(f.settled_micros) <> 0 OR sum(f.released_micros) <> 0;
END;
$$;

SELECT "stat_rebuild"();
