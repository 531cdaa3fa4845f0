import { describe, expect, it } from "vitest";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { usageGap } from "@/lib/services/usage/usage-gap";
import { makeUser, producer } from "./fixtures";
import { ledgerCharge, parkedHold } from "./helpers/usage";
import { openTestDb } from "./setup/test-db";

// DESIGN section 11: many producers share one deployment and often one provider account, so one
// usage export names several producers' jobs. Each line settles its own producer's hold (matched by
// job, decision 073), and a person limited to some producers reads only theirs (decision 035).
const { db } = openTestDb();
const agency = producer("usage-account-agency");
const studio = producer("usage-account-studio");

describe("one export of a provider account two producers share", () => {
  it("settles each producer's own holds, and a person limited to one producer sees only that one's gap", async () => {
    const finance = await makeUser(db, ["finance"]);
    const a1 = await parkedHold(db, { currency: "XBK", amountMicros: 100_000, who: agency });
    const a2 = await parkedHold(db, { currency: "XBK", amountMicros: 200_000, who: agency });
    const b1 = await parkedHold(db, { currency: "XBK", amountMicros: 100_000, who: studio });
    const summary = await importUsageFile(db, finance, {
      provider: "replicate",
      format: "generic",
      fileName: "shared-account.csv",
      content: [
        "provider_job_id,provider_account,amount,currency,time",
        `${a1.jobId},acct-shared,0.09,XBK,2026-12-01T10:00:00Z`,
        `${b1.jobId},acct-shared,0.13,XBK,2026-12-01T10:05:00Z`,
        `${a2.jobId},acct-shared,0.2,XBK,2026-12-01T10:10:00Z`,
      ].join("\n"),
    });
    expect(summary).toMatchObject({ read: 3, matched: 3, unexplained: 0 });
    expect(summary.lines.map((line) => line.holdId)).toEqual([a1.hold.holdId, b1.hold.holdId, a2.hold.holdId]);
    const lines = await db.usageLine.findMany({
      where: { providerJobId: { in: [a1.jobId, a2.jobId, b1.jobId] } },
      include: { hold: { select: { producer: true } } },
      orderBy: { lineNumber: "asc" },
    });
    expect(lines.map((line) => [line.providerAccount, line.hold?.producer])).toEqual([
      ["acct-shared", agency.name],
      ["acct-shared", studio.name],
      ["acct-shared", agency.name],
    ]);
    expect(await ledgerCharge(db, a1.hold.id)).toBe(90_000n);
    expect(await ledgerCharge(db, a2.hold.id)).toBe(200_000n);
    expect(await ledgerCharge(db, b1.hold.id)).toBe(130_000n);

    const gapOf = async (actor: typeof finance) =>
      (await usageGap(db, actor, { days: 30 })).rows
        .filter((row) => row.currency === "XBK")
        .map((row) => [row.producer, row.jobs, row.reservedMicros, row.chargedMicros, row.gapMicros])
        .sort();
    expect(await gapOf(finance)).toEqual([
      [agency.name, 2, "300000", "290000", "-10000"],
      [studio.name, 1, "100000", "130000", "30000"],
    ]);
    const agencyOnly = { ...(await makeUser(db, ["finance"])), producers: [agency.name] };
    expect(await gapOf(agencyOnly)).toEqual([[agency.name, 2, "300000", "290000", "-10000"]]);
    // The Finance page's charged total follows the same scope (decision 077).
    const charged = async (actor: typeof finance) =>
      (await getFinanceTotals(db, actor)).byCurrency.find((row) => row.currency === "XBK")?.chargedMicros;
    expect(await charged(finance)).toBe("420000");
    expect(await charged(agencyOnly)).toBe("290000");
  });
});
