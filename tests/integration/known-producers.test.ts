import { describe, expect, it } from "vitest";
import { listKnownProducers } from "@/lib/services/admin/known-producers";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { parkCase } from "@/lib/services/case/park-case";
import { setUserProducersSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import { makeUser, parkInput, producer, registerProducers } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 057: a person's producers are chosen from the producers the deployment knows (an API
// key's name, or operations sent under it); a mistyped name is refused, not saved as a scope that
// quietly shows nothing.
const { db } = openTestDb();
const run = Date.now().toString(36);

describe("a person's producer scope", () => {
  it("is chosen from the producers with API keys or operations; an unknown name is refused and nothing changes", async () => {
    const [keyed, parked] = [producer(`known-key-${run}`), producer(`known-ops-${run}`)];
    await registerProducers(db, keyed);
    await parkCase(db, parked, parkInput("polling"));
    const admin = await makeUser(db, ["admin"]);
    const person = await makeUser(db, ["reviewer"]);
    const known = await listKnownProducers(db, admin);
    expect(known).toEqual(expect.arrayContaining([keyed.name, parked.name]));
    await expect(listKnownProducers(db, person)).rejects.toMatchObject({ code: "forbidden" });

    const set = (producers: string[]) =>
      setUserProducers(db, admin, parseInput(setUserProducersSchema, { userId: person.userId, producers }));
    await set([keyed.name, parked.name]);
    const typo = `${keyed.name}x`;
    const refused = await set([keyed.name, typo]).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: "unknown_producer",
      status: 400,
      extra: { issues: [{ path: "producers" }] },
    });
    expect((refused as Error).message).toContain(typo);
    const row = await db.user.findUniqueOrThrow({ where: { id: person.userId } });
    expect(row.producerScope.sort()).toEqual([keyed.name, parked.name].sort());
    expect(
      await db.auditEvent.count({
        where: { kind: "user_producers_changed", after: { path: ["id"], equals: person.userId } },
      }),
    ).toBe(1);
  });
});
