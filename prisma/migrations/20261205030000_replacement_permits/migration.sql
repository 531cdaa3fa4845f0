-- A permit for every paid send the product authorises (docs/decisions/036-a-permit-for-every-paid-send.md).
--
-- An authorised replacement is issued its permit with the authorisation, on the same operation as
-- the permits before it, so "at most one open permit per operation" now means one send in flight:
-- live or accepted, and not parked. A parked, completed or failed permit is history (its case
-- decides from there) and no longer blocks the next episode's permit.
DROP INDEX "send_permits_one_open_per_operation";
CREATE UNIQUE INDEX "send_permits_one_open_per_operation" ON "send_permits"("operation_ref")
  WHERE "status" IN ('live', 'accepted') AND "case_ref" IS NULL;

-- A replacement withdrawn before it was sent (its original job turned up) voids its permit: no
-- report is taken on it, and nothing is parked for it.
ALTER TYPE "PermitStatus" ADD VALUE 'withdrawn';
