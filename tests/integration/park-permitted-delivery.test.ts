import { describe, expect, it } from "vitest";
import * as casesRoute from "@/app/api/v1/cases/route";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { outcomeInput, parkOfPermit, permitInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 078: a send made under a permit whose job completed, and whose outputs its producer then
// failed to fetch, is parked by that producer at delivery on the permit's own attempt and hold.
const { db } = openTestDb();
const shop = producer("permitted-delivery-shop");

async function permitted(report: "accepted" | "completed" | null) {
  const { operationId, input } = permitInput();
  const permit = await requestPermit(db, shop, operationId, input, env());
  if (permit.status !== "permitted") throw new Error("expected a permit");
  const job = `pred-delivered-${operationId}`;
  if (report) await reportOutcome(db, shop, input.attemptId, outcomeInput(operationId, 1, report, job));
  const key = await createAccessToken(db, "cli", { kind: "api_key", name: shop.name });
  const park = (overrides: Parameters<typeof parkOfPermit>[3] = {}) =>
    callRoute(casesRoute.POST, {
      token: key.secret,
      method: "POST",
      body: parkOfPermit(operationId, input, job, overrides),
    });
  return { operationId, input, job, park };
}

const permitOf = (attemptId: string) =>
  db.sendPermit.findFirstOrThrow({ where: { attempt: { attemptId } }, include: { hold: true } });

describe("a permitted send parked at delivery", () => {
  it("opens the case on the permit's attempt and settled hold once, and a replay answers the same case", async () => {
    const { input, job, park } = await permitted("completed");
    const first = await park();
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ created: true, stage: "delivery", state: "parked" });
    const caseId = String(first.json.caseId);
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const permit = await permitOf(input.attemptId);
    expect({ attempt: row.attemptRef, job: row.providerJobId, held: row.heldMicros }).toEqual({
      attempt: permit.attemptRef,
      job,
      held: 0n,
    });
    expect({ status: permit.status, caseRef: permit.caseRef, hold: permit.hold.status }).toEqual({
      status: "completed",
      caseRef: caseId,
      hold: "settled",
    });
    expect(permit.hold.caseId).toBe(caseId);

    const again = await park();
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ caseId, created: false });
  });

  it("is a proof of completion for a send reported accepted: the hold settles as a completion report settles it", async () => {
    const { input, park } = await permitted("accepted");
    expect((await permitOf(input.attemptId)).hold.status).toBe("held");
    const parked = await park();
    expect(parked.status).toBe(201);
    const permit = await permitOf(input.attemptId);
    expect({ status: permit.status, hold: permit.hold.status, caseRef: permit.caseRef }).toEqual({
      status: "completed",
      hold: "settled",
      caseRef: String(parked.json.caseId),
    });
    const ledger = await db.ledgerEntry.findMany({ where: { holdRef: permit.holdRef }, orderBy: { createdAt: "asc" } });
    expect(ledger.map((e) => e.kind)).toEqual(["reserve", "settle"]);
  });

  it("refuses another model, hold or job than the permit's and changes nothing", async () => {
    const { input, park } = await permitted("completed");
    const before = await tableCounts(db);
    for (const overrides of [
      { model: "omni-pro-1080p" },
      { hold: { ...input.hold, holdId: `${input.hold.holdId}-other` } },
      { providerJobId: "pred-someone-elses" },
    ]) {
      const refused = await park(overrides);
      expect([refused.status, refused.json.error?.code]).toEqual([409, "conflicting_registration"]);
    }
    expect(await tableCounts(db)).toEqual(before);
    expect((await permitOf(input.attemptId)).caseRef).toBeNull();
  });

  it("leaves other stages of a permitted operation to its outcome report, as before", async () => {
    const { park } = await permitted("accepted");
    const refused = await park({ stage: "submission_uncertain", providerJobId: undefined });
    expect([refused.status, refused.json.error?.code]).toEqual([409, "conflicting_registration"]);
    expect(refused.json.error?.message).toContain("report its outcome");
  });
});
