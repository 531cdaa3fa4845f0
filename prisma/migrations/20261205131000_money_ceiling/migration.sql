-- The money ceiling (docs/decisions/051): the database's last line behind the adapters' configured
-- ceiling (MONEY_CEILING_MICROS, at most this hard maximum) and the domain's. 10^15 micro-units is
-- 1,000,000,000 units of a currency: no one paid video comes near it.
--
-- NOT VALID: rows written before the ceiling are kept as they are (nobody rewrites money); every
-- row written from now on is checked. A hold is checked while it is held (it is inserted held), so
-- one taken before the ceiling can still be released or settled, which is how finance clears it;
-- for the same reason ledger entries, which follow from their hold, carry no check of their own.
ALTER TABLE "holds"
    ADD CONSTRAINT "holds_amount_within_ceiling"
    CHECK ("status" <> 'held' OR "amount_micros" <= 1000000000000000) NOT VALID;
ALTER TABLE "replacement_requests"
    ADD CONSTRAINT "replacement_requests_amount_within_ceiling"
    CHECK ("amount_micros" <= 1000000000000000) NOT VALID;
ALTER TABLE "provider_prices"
    ADD CONSTRAINT "provider_prices_within_ceiling" CHECK ("price_micros" <= 1000000000000000) NOT VALID;
ALTER TABLE "spend_limits"
    ADD CONSTRAINT "spend_limits_within_ceiling"
    CHECK (coalesce("per_hour_micros", 0) <= 1000000000000000 AND coalesce("per_day_micros", 0) <= 1000000000000000) NOT VALID;
