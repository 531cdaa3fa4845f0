-- Adjustments join the running totals (docs/decisions/077-corrections-in-the-running-totals.md).
--
-- An adjustment is the signed difference between a provider's own figure for a job and what the
-- ledger charged its hold (decision 073). It becomes its own figure, `adjustment`, per currency,
-- provider, model and producer like overage and late_charge, with hourly rows beside the all-hours
-- one (as ledger_held keeps them) so a day's corrections are a sum of whole hours. count and micros
-- are signed per entry: micros is the entry's own signed amount, so a refund lowers the figure.
-- Same signature: the ledger trigger and stat_rebuild pick it up as they are.
CREATE OR REPLACE FUNCTION "stat_ledger_figures"(kind "LedgerEntryKind", amount_micros BIGINT, created_at TIMESTAMPTZ,
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
  SELECT $1::text, NULL, $4, $5, $6, NULL, NULL, NULL, $8, $7, $7 * $2, 0, 0
  WHERE $1 IN ('overage', 'late_charge')
  UNION ALL
  SELECT 'adjustment', NULL, $4, $5, $6, NULL, NULL, b.hour, $8, $7, $7 * $2, 0, 0
  FROM (VALUES (date_trunc('hour', $3, 'UTC')), (NULL)) AS b(hour)
  WHERE $1 = 'adjustment'
$$;

-- The adjustments booked before this figure existed, through the same function.
INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                         micros, settled_micros, released_micros)
SELECT f.figure, f.stage, f.currency, f.provider, f.model, f.hold_status, f.partial, f.hour, f.producer,
       sum(f.count), sum(f.micros), sum(f.settled_micros), sum(f.released_micros)
FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
  JOIN operations o ON o.id = a.operation_ref
  CROSS JOIN LATERAL stat_ledger_figures(e.kind, e.amount_micros, e.created_at, h.currency, o.provider, o.model, 1,
                                         h.producer) f
WHERE e.kind = 'adjustment' AND f.figure = 'adjustment'
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;

-- A usage line matched to a hold whose send may still complete waits, unapplied (adjustment_micros
-- NULL), until the outcome is known; the worker's round finds the few waiting lines by this index.
CREATE INDEX "usage_lines_waiting" ON "usage_lines"("hold_ref") WHERE "adjustment_micros" IS NULL AND "hold_ref" IS NOT NULL;
