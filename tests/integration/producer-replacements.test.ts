import { describe, expect, it } from "vitest";
import * as ackRoute from "@/app/api/v1/replacements/[id]/ack/route";
import * as replacementsRoute from "@/app/api/v1/replacements/route";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { makeUser, parkInput, producer } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { openTestDb } from "./setup/test-db";

const { db } = openTestDb();

describe("authorised replacements for the producer to submit", () => {
  it("lists them for the owning producer only, acknowledges once, and the replacement re-parks as episode 2", async () => {
    const key = await createAccessToken(db, "cli", { kind: "api_key", name: "repl-shop" });
    const other = await createAccessToken(db, "cli", { kind: "api_key", name: "other-shop" });
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance"]);
    const input = parkInput("generation_failed");
    const { caseId } = await parkCase(db, producer("repl-shop"), input);
    const { requestId } = await requestReplacement(db, reviewer, caseId, {
      evidence: "content filter; customer still waiting",
    });

    const before = await callRoute(replacementsRoute.GET, { token: key.secret });
    expect(before.json.items).toEqual([]);
    const authorized = await authorizeReplacement(db, finance, requestId, { evidence: "budget ok" });

    const listed = await callRoute(replacementsRoute.GET, { token: key.secret, query: { status: "authorized" } });
    expect(listed.status).toBe(200);
    expect(listed.json.items).toEqual([
      expect.objectContaining({
        id: requestId,
        operationId: input.operationId,
        attemptId: authorized.attemptId,
        replacesAttemptId: input.attemptId,
        hold: { holdId: authorized.holdId, amountMicros: 100_000, currency: "USD" },
      }),
    ]);
    expect((await callRoute(replacementsRoute.GET, { token: other.secret })).json.items).toEqual([]);
    expect(
      (await callRoute(ackRoute.POST, { token: other.secret, params: { id: requestId }, method: "POST" })).status,
    ).toBe(404);

    const first = await callRoute(ackRoute.POST, { token: key.secret, params: { id: requestId }, method: "POST" });
    const again = await callRoute(ackRoute.POST, { token: key.secret, params: { id: requestId }, method: "POST" });
    expect(first.status).toBe(200);
    expect(again.json.acknowledgedAt).toBe(first.json.acknowledgedAt);
    expect(await db.auditEvent.count({ where: { caseId, kind: "replacement_acknowledged" } })).toBe(1);
    expect((await callRoute(replacementsRoute.GET, { token: key.secret })).json.items).toEqual([]);

    // While the replacement is out under its permit, no other attempt takes the case (decision 036).
    await expect(
      parkCase(db, producer("repl-shop"), {
        ...input,
        attemptId: `${input.attemptId}-a2`,
        stage: "submission_uncertain",
        hold: { holdId: `${input.hold.holdId}-a2`, amountMicros: 100_000, currency: "USD" },
      }),
    ).rejects.toMatchObject({ code: "conflicting_registration" });
    // The producer submits the replacement itself; if that is lost too, it parks on the same case.
    const reparked = await parkCase(db, producer("repl-shop"), {
      ...input,
      attemptId: authorized.attemptId,
      stage: "submission_uncertain",
      hold: { holdId: authorized.holdId, amountMicros: 100_000, currency: "USD" },
    });
    expect(reparked).toMatchObject({ caseId, created: true, stage: "submission_uncertain", state: "parked" });
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    expect(row.episode).toBe(2);
    expect(await db.hold.count({ where: { caseId } })).toBe(2);
    // Its permit is parked with that episode, so its deadline parks nothing a second time.
    expect(await db.sendPermit.findFirstOrThrow({ where: { hold: { holdId: authorized.holdId } } })).toMatchObject({
      status: "uncertain",
      caseRef: caseId,
    });
  });
});
