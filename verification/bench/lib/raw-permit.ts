/**
 * A send permit's rows written by hand, the baseline a permit is read against: operation, attempt,
 * hold, reserve entry, the permit, and its audit event on the operation's own chain (decision 059).
 * Parameters: producer, operation ID, request fingerprint, attempt ID, hold ID, API key id.
 */
export const RAW_PERMIT = `
WITH op AS (
  INSERT INTO operations (producer, operation_id, provider, model, request_fingerprint)
  VALUES ($1, $2, 'replicate', 'minimax/video-01', $3)
  ON CONFLICT (producer, operation_id) DO NOTHING RETURNING id
), att AS (
  INSERT INTO attempts (operation_ref, attempt_id, kind, provider) SELECT id, $4, 'original', 'replicate' FROM op RETURNING id, operation_ref
), h AS (
  INSERT INTO holds (hold_id, producer, attempt_ref, amount_micros, currency) SELECT $5, $1, id, 500000, 'USD' FROM att RETURNING id, attempt_ref
), ledger AS (
  INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label) SELECT id, 'reserve', 500000, 'api key ' || $1 FROM h
), permit AS (
  INSERT INTO send_permits (producer, operation_ref, attempt_ref, hold_ref, token, send_deadline)
  SELECT $1, att.operation_ref, att.id, h.id, 1, now() + interval '10 minutes' FROM att JOIN h ON h.attempt_ref = att.id
  RETURNING id, operation_ref
)
INSERT INTO audit_events (operation_ref, actor_kind, actor_id, actor_label, kind, after)
SELECT operation_ref, 'api_key', $6, 'api key ' || $1, 'permit_issued', jsonb_build_object('operationId', $2::text, 'token', 1) FROM permit`;
