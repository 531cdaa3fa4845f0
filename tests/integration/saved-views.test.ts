import { describe, expect, it } from "vitest";
import {
  deleteView,
  listSavedViews,
  SAVED_VIEWS_MAX,
  saveView,
  setViewShared,
} from "@/lib/services/saved-view/saved-views";
import { parseInput } from "@/lib/validation/parse-input";
import { saveViewSchema } from "@/lib/validation/saved-views";
import { makeUser } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Saved queue views belong to one person: kept in the queue's own words (read so by the schema the
// console's action parses with), never another's to read or delete.
const { db } = openTestDb();

describe("saved queue views", () => {
  it("keep the filter in the queue's words, without a page cursor, and a name replaces its view", async () => {
    const operator = await makeUser(db, ["operator"]);
    const saved = await saveView(
      db,
      operator,
      parseInput(saveViewSchema, {
        name: "Big polling",
        query: "stage=polling&sort=amount&minHeld=5.50&cursor=abc&q=",
      }),
    );
    expect(saved.query).toBe("stage=polling&minHeld=5.5&sort=amount");
    await saveView(db, operator, parseInput(saveViewSchema, { name: "Big polling", query: "stage=delivery" }));
    expect(await listSavedViews(db, operator)).toEqual([
      { id: saved.id, name: "Big polling", query: "stage=delivery", shared: false, owner: null },
    ]);
  });

  it("refuse a filter the queue would not understand, and change nothing", async () => {
    const operator = await makeUser(db, ["operator"]);
    for (const query of ["stage=nonsense", "minHeld=5,50", "currency=JPY&minHeld=5.5"]) {
      await expect(
        Promise.resolve().then(() => saveView(db, operator, parseInput(saveViewSchema, { name: "bad", query }))),
      ).rejects.toMatchObject({ code: "invalid_request" });
    }
    expect(await listSavedViews(db, operator)).toEqual([]);
  });

  it("are nobody else's to read or delete", async () => {
    const owner = await makeUser(db, ["operator"]);
    const other = await makeUser(db, ["reviewer"]);
    const saved = await saveView(db, owner, parseInput(saveViewSchema, { name: "Mine", query: "flag=escalated" }));
    expect(await listSavedViews(db, other)).toEqual([]);
    await expect(deleteView(db, other, saved.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await listSavedViews(db, owner)).toHaveLength(1);
    await deleteView(db, owner, saved.id);
    expect(await listSavedViews(db, owner)).toEqual([]);
  });

  it(`stop at ${SAVED_VIEWS_MAX} per person, yet a name already saved may still be replaced`, async () => {
    const operator = await makeUser(db, ["operator"]);
    for (let i = 0; i < SAVED_VIEWS_MAX; i++)
      await saveView(db, operator, parseInput(saveViewSchema, { name: `v${i}`, query: `q=view-${i}` }));
    await expect(
      saveView(db, operator, parseInput(saveViewSchema, { name: "one more", query: "" })),
    ).rejects.toMatchObject({ code: "conflict" });
    await saveView(db, operator, parseInput(saveViewSchema, { name: "v0", query: "stage=delivery" }));
    expect(await listSavedViews(db, operator)).toHaveLength(SAVED_VIEWS_MAX);
  });

  it("shared by their owner, are offered read-only to the team within each reader's producers", async () => {
    const owner = await makeUser(db, ["operator"]);
    const teammate = await makeUser(db, ["reviewer"]);
    const shopB = { ...(await makeUser(db, ["operator"])), producers: ["shop-b"] };
    const wide = await saveView(
      db,
      owner,
      parseInput(saveViewSchema, { name: "Team escalated", query: "flag=escalated" }),
    );
    const shopA = await saveView(db, owner, parseInput(saveViewSchema, { name: "Shop A", query: "producer=shop-a" }));
    expect(await listSavedViews(db, teammate)).toEqual([]);
    // Only the owner shares, and nobody but the owner changes a view.
    await expect(setViewShared(db, teammate, { id: wide.id, shared: true })).rejects.toMatchObject({
      code: "not_found",
    });
    await setViewShared(db, owner, { id: wide.id, shared: true });
    await setViewShared(db, owner, { id: shopA.id, shared: true });
    const seen = await listSavedViews(db, teammate);
    expect(seen.map((v) => [v.name, v.owner])).toEqual([
      ["Shop A", owner.name],
      ["Team escalated", owner.name],
    ]);
    // A person limited to shop B is not offered a view of shop A's cases.
    expect((await listSavedViews(db, shopB)).map((v) => v.name)).toEqual(["Team escalated"]);
    await expect(deleteView(db, teammate, wide.id)).rejects.toMatchObject({ code: "not_found" });
    // The owner still sees them as their own, marked shared.
    expect((await listSavedViews(db, owner)).map((v) => [v.name, v.shared, v.owner])).toEqual([
      ["Shop A", true, null],
      ["Team escalated", true, null],
    ]);
    await setViewShared(db, owner, { id: wide.id, shared: false });
    expect((await listSavedViews(db, teammate)).map((v) => v.name)).toEqual(["Shop A"]);
    await deleteView(db, owner, shopA.id);
    await deleteView(db, owner, wide.id);
  });
});
