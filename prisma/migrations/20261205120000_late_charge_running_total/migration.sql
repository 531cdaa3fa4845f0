-- Charges after release (DESIGN rule 18) join the running totals as their own figure, per currency,
-- provider, model and producer, so Finance's totals count them beside overage (money nobody
-- reserved) whether or not finance has decided them yet. Same signature: the ledger trigger and
-- stat_rebuild pick it up as they are.
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
$$;

-- The late charges booked before this figure existed (a handful: each is a flagged exception).
INSERT INTO stat_deltas (figure, stage, currency, provider, model, hold_status, "partial", hour, producer, count,
                         micros, settled_micros, released_micros)
SELECT 'late_charge', NULL, h.currency, o.provider, o.model, NULL, NULL, NULL, h.producer, count(*),
       sum(e.amount_micros), 0, 0
FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts a ON a.id = h.attempt_ref
  JOIN operations o ON o.id = a.operation_ref
WHERE e.kind = 'late_charge'
GROUP BY h.currency, o.provider, o.model, h.producer;
