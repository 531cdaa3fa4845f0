import { describe, expect, it } from "vitest";
import { findCasesByOperation } from "@/lib/services/case/find-cases-by-operation";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 057: people paste an operation ID (from their own systems) where the console expects a
// case ID. Operation IDs are unique per producer only: within the person's producers one case is
// found, or several to choose from; another producer's case is never among them.
const { db } = openTestDb();
const run = Date.now().toString(36);

describe("a case found by its operation ID", () => {
  it("finds one case per producer the person may see, and none of another producer's", async () => {
    const [shopA, shopB] = [producer(`op-a-${run}`), producer(`op-b-${run}`)];
    const operationId = `shared-${run}`;
    const a = await parkCase(db, shopA, parkInput("polling", { operationId }));
    const b = await parkCase(db, shopB, parkInput("submission_uncertain", { operationId }));
    const everyone = await makeUser(db, ["viewer"]);
    const onlyA = { ...(await makeUser(db, ["reviewer"])), producers: [shopA.name] };
    const elsewhere = { ...(await makeUser(db, ["reviewer"])), producers: [`op-c-${run}`] };

    const both = await findCasesByOperation(db, everyone, operationId);
    expect(both.map((m) => [m.producer, m.caseId])).toEqual([
      [shopA.name, a.caseId],
      [shopB.name, b.caseId],
    ]);
    expect(both[1]).toMatchObject({ stage: "submission_uncertain", state: "parked", operationId });
    expect((await findCasesByOperation(db, onlyA, operationId)).map((m) => m.caseId)).toEqual([a.caseId]);
    // The same answer as an operation ID nobody used: nothing says shop B's case exists.
    expect(await findCasesByOperation(db, elsewhere, operationId)).toEqual([]);
    expect(await findCasesByOperation(db, everyone, `never-${run}`)).toEqual([]);
  });

  it("is refused to someone who may not read cases", async () => {
    await expect(findCasesByOperation(db, await makeUser(db, []), "anything")).rejects.toMatchObject({
      code: "forbidden",
    });
  });
});
