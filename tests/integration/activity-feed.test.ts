import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { recordAudit } from "@/lib/audit/writer";
import { listActivity } from "@/lib/services/admin/list-activity";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { refusal } from "./helpers/refusal";
import { openTestDb } from "./setup/test-db";

// Decision 066: the activity feed reads the system chain's changes (no case, no operation), newest
// first, a keyset page at a time, in words, filtered by kind, for admins who see every producer.
const { db } = openTestDb();

describe("the activity feed", () => {
  it("lists people, scope and settings changes newest first, in words, and nothing with a case or an operation", async () => {
    const admin = await makeUser(db, ["admin"]);
    const person = await makeUser(db, ["operator"]);
    await parkCase(db, producer("feed-shop"), parkInput("delivery"));
    await setUserRoles(db, admin, { userId: person.userId, roles: ["operator", "reviewer"] });
    await setUserProducers(db, admin, { userId: person.userId, producers: ["feed-shop"] });
    // Neither of these is a change to the deployment: one is a case's, one an operation's (decision 059).
    await parkCase(db, producer("feed-shop"), parkInput("delivery"));
    await recordAudit(db, { actor: admin, kind: "user_roles_changed", operationRef: randomUUID() });

    const { items } = await listActivity(db, admin, { limit: 2 });
    expect(items.map((i) => [i.kind, i.sentence, i.subject, i.actor])).toEqual([
      ["user_producers_changed", "Person's producers changed", person.email, admin.email],
      ["user_roles_changed", "Person's roles changed", person.email, admin.email],
    ]);
    const operationEvents = await db.auditEvent.count({ where: { caseId: null, operationRef: { not: null } } });
    expect(operationEvents).toBeGreaterThan(0);
  });

  it("pages by cursor without gaps or repeats, and filters by kind", async () => {
    const admin = await makeUser(db, ["admin"]);
    const person = await makeUser(db, ["operator"]);
    for (const roles of [["viewer"], ["operator"], ["reviewer"], ["finance"], ["operator"]] as const) {
      await setUserRoles(db, admin, { userId: person.userId, roles: [...roles] });
    }
    const all = await listActivity(db, admin, { group: "people", limit: 500 });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listActivity(db, admin, { group: "people", before: cursor, limit: 2 });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.items.map((i) => i.id));
    expect(seen.map(BigInt)).toEqual([...seen.map(BigInt)].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(new Set(all.items.map((i) => i.kind))).toEqual(new Set(["user_roles_changed"]));
    const scope = await listActivity(db, admin, { group: "scope" });
    expect(scope.items.every((i) => i.kind === "user_producers_changed")).toBe(true);
    expect((await listActivity(db, admin, { group: "retention" })).items).toEqual([]);
  });

  it("is for admins who see every producer", async () => {
    const operator = await makeUser(db, ["operator"]);
    expect((await refusal(listActivity(db, operator, {}))).code).toBe("forbidden");
    const scopedAdmin = { ...(await makeUser(db, ["admin"])), producers: ["some-shop"] };
    expect((await refusal(listActivity(db, scopedAdmin, {}))).code).toBe("forbidden");
  });
});
