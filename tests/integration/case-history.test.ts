import { describe, expect, it } from "vitest";
import { recordAudit } from "@/lib/audit/writer";
import { HISTORY_DAYS } from "@/lib/domain/case-history";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { parkCase } from "@/lib/services/case/park-case";
import { caseHistory } from "@/lib/services/overview/case-history";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 066: cases opened, resolved and parked again per UTC hour over 14 days, by stage and
// provider, within the person's producers.
const { db } = openTestDb();
const shop = producer("history-shop");
const elsewhere = producer("history-elsewhere");

const sum = (hours: { opened: number; resolved: number; parked: number }[]) =>
  hours.reduce(
    (t, h) => ({ opened: t.opened + h.opened, resolved: t.resolved + h.resolved, parked: t.parked + h.parked }),
    { opened: 0, resolved: 0, parked: 0 },
  );

describe("case history", () => {
  it("counts opened, resolved and parked-again cases in their hour, by stage and provider, in scope", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const viewer = { ...(await makeUser(db, ["operator"])), producers: [shop.name] };
    const polling = await parkCase(db, shop, parkInput("polling"));
    await parkCase(db, shop, parkInput("polling"));
    const failed = await parkCase(db, shop, parkInput("generation_failed", { provider: "fal" }));
    await parkCase(db, elsewhere, parkInput("polling"));
    await acceptFailure(db, reviewer, failed.caseId, { evidence: "the provider reported the failure" });
    await recordAudit(db, {
      actor: worker(),
      kind: "poison_parked",
      caseId: polling.caseId,
      episode: 1,
      after: { stage: "polling" },
    });

    const now = new Date();
    const all = await caseHistory(db, viewer, { now });
    expect(all.hours).toHaveLength(HISTORY_DAYS * 24);
    expect(sum(all.hours)).toEqual({ opened: 3, resolved: 1, parked: 1 });
    // Everything happened in the current hour, the last of the window.
    expect(all.hours.at(-1)).toMatchObject({ opened: 3, resolved: 1, parked: 1 });
    expect(new Date(all.hours.at(-1)?.hour ?? "").getTime()).toBeLessThanOrEqual(now.getTime());
    expect(sum(all.hours.slice(0, -1))).toEqual({ opened: 0, resolved: 0, parked: 0 });

    expect(sum((await caseHistory(db, viewer, { now, stage: "polling" })).hours)).toEqual({
      opened: 2,
      resolved: 0,
      parked: 1,
    });
    expect(sum((await caseHistory(db, viewer, { now, provider: "fal" })).hours)).toEqual({
      opened: 1,
      resolved: 1,
      parked: 0,
    });
    // A window that ends before these cases holds none of them.
    const earlier = new Date(now.getTime() - 2 * 3_600_000);
    expect(sum((await caseHistory(db, viewer, { now: earlier })).hours)).toEqual({ opened: 0, resolved: 0, parked: 0 });
  });
});
