-- A first permit takes its producer's sends limits last (docs/decisions/082-spend-limits-taken-last.md).
-- The permit's statement writes its rows first and locks the limits just before it commits, so the
-- limit's row is held for the commit alone; when the amount would pass a limit, the statement must
-- then undo what it wrote. It does so by failing: this function raises, with the limit's figures as
-- the error's detail (its row as JSON), and the whole statement rolls back with nothing written.
-- Its own SQLSTATE lets the caller tell the refusal from any other failure.
CREATE FUNCTION "spend_gate_refuse"(p_limit JSONB) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'spend limit reached' USING ERRCODE = 'SG001', DETAIL = p_limit::text;
END;
$$;
