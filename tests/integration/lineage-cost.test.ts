import { describe, expect, it } from "vitest";
import { env } from "@/lib/env";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();
const shop = producer("lineage-shop");

/**
 * A first attempt in USD that failed and was charged part of its hold, then the same operation
 * parked again (a new episode) with a second attempt held in JPY.
 */
async function usdThenJpy() {
  const reviewer = await makeUser(db, ["reviewer"]);
  const finance = await makeUser(db, ["finance"]);
  const first = parkInput("generation_failed", { hold: { holdId: "h-usd", amountMicros: 100_000, currency: "USD" } });
  const { caseId } = await parkCase(db, shop, first);
  await acceptFailure(db, reviewer, caseId, { evidence: "the provider failed the job" });
  const usdHold = await db.hold.findFirstOrThrow({ where: { caseId, currency: "USD" } });
  await resolveHold(db, finance, usdHold.id, {
    kind: "settle",
    chargeMicros: 40_000,
    note: "invoice line 3",
    evidence: "usage export",
  });
  await parkCase(
    db,
    shop,
    parkInput("submission_uncertain", {
      operationId: first.operationId,
      attemptId: `${first.operationId}-a2`,
      hold: { holdId: "h-jpy", amountMicros: 500_000_000, currency: "JPY" },
    }),
  );
  return { caseId, reviewer };
}

describe("a case's lineage cost", () => {
  it("sums per currency, charged apart from reserved, instead of one figure across USD and JPY", async () => {
    const { caseId, reviewer } = await usdThenJpy();
    const detail = await getCase(db, reviewer, caseId, env());
    expect(detail.lineage.map((a) => a.hold?.currency)).toEqual(["USD", "JPY"]);
    expect(detail.lineageCost).toEqual([
      { currency: "JPY", reservedMicros: 500_000_000, chargedMicros: 0, heldMicros: 500_000_000 },
      { currency: "USD", reservedMicros: 100_000, chargedMicros: 40_000, heldMicros: 0 },
    ]);
  });
});
