-- Counting a queue view whose filters no ordered index serves (one provider's ready cases, a stage
-- over an amount) read the matching cases' heap pages one by one: at a million cases, 19,000 pages
-- for 3,106 ready runway cases, past the count's 120 ms budget, so the whole queue page waited for
-- the budget (docs/performance.md §5). Every column a view filters open cases on is in this index,
-- so such a count is an index-only scan of the matching states' entries (55 buffers for that view).
-- Not partial: a partial index on open cases would also be a candidate for every other read of
-- open cases (the escalated ones' count among them), which have partial indexes of their own.
CREATE INDEX "cases_state_stage_provider" ON "cases" ("state", "stage", "provider", "model")
  INCLUDE ("producer", "currency", "held_micros", "opened_at", "assignee_id");
