import { describe, expect, it } from "vitest";
import { describeEvent } from "@/lib/domain/timeline-words";
import { env } from "@/lib/env";
import { assignCase } from "@/lib/services/case/assign-case";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { assignSchema } from "@/lib/validation/review";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 057: an assignment with its reason is one timeline entry that names the assignee, not an
// "Assigned" entry and a note beside it.
const { db } = openTestDb();

describe("an assignment on the timeline", () => {
  it("is one entry naming the assignee, with the reason in it", async () => {
    const { caseId } = await parkCase(db, producer("assign-shop"), parkInput("polling"));
    const [operator, reviewer] = [await makeUser(db, ["operator"]), await makeUser(db, ["reviewer"])];
    // The console and the API parse the reason with the assignment itself.
    const input = assignSchema.parse({ assigneeId: reviewer.userId, reason: "knows this provider" });
    await assignCase(db, operator, caseId, input);

    const rows = await db.auditEvent.findMany({ where: { caseId, kind: { in: ["assigned", "note_added"] } } });
    expect(rows).toHaveLength(1);
    const detail = await getCase(db, operator, caseId, env());
    const entries = detail.timeline.filter((e) => e.kind === "assigned" || e.kind === "note_added");
    expect(entries.map((e) => describeEvent(e))).toEqual([
      { sentence: `Assigned to ${reviewer.name}`, said: "knows this provider" },
    ]);

    await assignCase(db, operator, caseId, assignSchema.parse({ assigneeId: null }));
    const after = (await getCase(db, operator, caseId, env())).timeline.filter((e) => e.kind === "assigned");
    expect(after.map((e) => describeEvent(e).sentence)).toEqual(["Unassigned", `Assigned to ${reviewer.name}`]);
  });
});
