import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@/lib/db/client";
import { foldStatDeltas } from "@/lib/db/stat-figures";
import type { Stage } from "@/lib/domain/stages";
import type { ProviderName } from "@/lib/providers/types";
import type { UserActor } from "@/lib/services/access/actor";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { openCasesByStage } from "@/lib/services/case/count-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { makeUser, parkInput, producer } from "./fixtures";
import { backdateLedger } from "./helpers/backdate-ledger";
import { compareFiguresWithScans } from "./helpers/compare-figures";
import { overviewByScan, runningTotals } from "./helpers/figures-by-scan";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// The overview and finance pages read running totals kept by triggers (migration
// 20261130000000_console_at_scale). Whatever happened to the rows, in whatever order, folded or
// not, the figures must be exactly what full scans of the rows say, at every age boundary.
const { db, url } = openTestDb();
const { db: owner } = openOwnerDb();
const shop = producer("figures-shop");
// A second producer: every figure of one of them must equal the scan of that one's rows alone.
const studio = producer("figures-studio");
const PRODUCER_VIEWS = [null, [shop.name], [studio.name], [shop.name, studio.name], ["nobody"]];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = new Date(Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000 + 123);

async function expectFiguresMatch(client: PrismaClient, actor: UserActor, now: Date) {
  for (const producers of PRODUCER_VIEWS) {
    const options = { alertWindowMinutes: 90, series: "original", producers } as const;
    const { figures, overviewScan } = await compareFiguresWithScans(client, actor, now, options);
    const view = producers?.join("+") ?? "all";
    for (const { figure, served, scanned } of figures) expect(served, `${figure} (${view})`).toEqual(scanned);
    // The one-pass reading of the series the benchmark checks a million rows with says the same.
    const onePass = await overviewByScan(client, now, now, { series: "cumulative", producers });
    expect(onePass.series, view).toEqual(overviewScan.series);
    // The queue's stage counts read the same totals.
    const byStage = await openCasesByStage(client, actor, producers);
    const scanned = Object.fromEntries(overviewScan.stages.map((s) => [s.stage, Number(s.open)]));
    expect(Object.fromEntries(Object.entries(byStage).filter(([, n]) => n > 0)), view).toEqual(scanned);
  }
}

/** Every boundary the figures cut at, hit exactly, a millisecond either side, and in between. */
function nowsAround(reference: Date): Date[] {
  const at = (ms: number) => new Date(reference.getTime() + ms);
  const edges = [HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 30 * DAY];
  return [at(0), at(-2 * HOUR), at(45 * 60_000), at(4 * DAY), ...edges.flatMap((e) => [at(e), at(e + 1), at(e - 1)])];
}

/** One usage export line per amount for the job of this hold, imported by finance (decision 073). */
async function importCharges(finance: UserActor, holdRef: string | undefined, amounts: string[]) {
  const [job] = await db.$queryRaw<{ provider: string; job: string; currency: string }[]>`
    SELECT a.provider, a.provider_job_id AS job, h.currency
    FROM holds h JOIN attempts a ON a.id = h.attempt_ref WHERE h.id = ${holdRef}::uuid`;
  if (!job) throw new Error(`no job for hold ${holdRef}`);
  const lines = amounts.map((amount) => `${job.job},${amount},${job.currency},2026-12-01T10:00:00Z`);
  await importUsageFile(db, finance, {
    provider: job.provider,
    format: "generic",
    fileName: `${job.job}-${amounts.join("_")}.csv`,
    content: ["provider_job_id,amount,currency,time", ...lines].join("\n"),
  });
}

describe("running totals behind the overview and finance pages", () => {
  it("answer what full scans answer, through every kind of change, folded or not, at every age boundary", async () => {
    const reviewer = await makeUser(db, ["reviewer"]);
    const finance = await makeUser(db, ["finance", "operator", "reviewer"]);
    const stages: Stage[] = ["submission_uncertain", "polling", "delivery", "generation_failed"];
    const currencies = ["USD", "EUR", "JPY"];
    const parked: { caseId: string; holdRef: string; stage: Stage; i: number }[] = [];
    for (let i = 0; i < 28; i++) {
      const stage = stages[i % 4] as Stage;
      const input = parkInput(stage, { provider: i % 3 === 0 ? "fal" : "replicate", model: `m-${i % 2}` });
      const { caseId } = await parkCase(db, i % 3 === 1 ? studio : shop, {
        ...input,
        hold: { ...input.hold, amountMicros: 10_000 * (i + 1), currency: currencies[i % 3] as string },
      });
      const hold = await db.hold.findFirstOrThrow({ where: { caseId } });
      parked.push({ caseId, holdRef: hold.id, stage, i });
    }
    // Ages on and around every boundary: cases opened, holds reserved and entries booked then.
    const offsets = [0, 10 * 60_000, HOUR, HOUR + 1, 5 * HOUR, 6 * HOUR, DAY - 1, DAY, 2 * DAY, 3 * DAY];
    const more = [3 * DAY + 1, 5 * DAY, 7 * DAY, 7 * DAY + 1, 12 * DAY, 30 * DAY, 30 * DAY + 1, 45 * DAY];
    const ages = [...offsets, ...more];
    const moves = parked.map(({ caseId, holdRef, i }) => ({
      caseId,
      holdRef,
      at: new Date(T0.getTime() - (ages[i % ages.length] ?? 0)),
    }));
    for (const { caseId, holdRef, at } of moves) {
      await db.$executeRaw`UPDATE cases SET opened_at = ${at} WHERE id = ${caseId}::uuid`;
      await db.$executeRaw`UPDATE holds SET created_at = ${at} WHERE id = ${holdRef}::uuid`;
    }
    await backdateLedger(owner, moves);
    await expectFiguresMatch(db, finance, T0);
    await foldStatDeltas(db);

    // Decisions of every kind, some folded before the next ones.
    const of = (stage: Stage) => parked.filter((p) => p.stage === stage);
    await approveCase(db, reviewer, of("polling")[0]?.caseId ?? "", { action: "resume_poll", evidence: "resume" });
    const [attach, noJob] = of("submission_uncertain");
    await reconcileCase(db, reviewer, attach?.caseId ?? "", {
      verdict: "attach",
      providerJobId: "j-1",
      evidence: "found",
    });
    await reconcileCase(
      db,
      reviewer,
      noJob?.caseId ?? "",
      { verdict: "no_job", evidence: "none in the window" },
      { now: new Date("2100-01-01T00:00:00Z") },
    );
    await acceptFailure(db, reviewer, noJob?.caseId ?? "", { evidence: "not accepted" });
    const failed = of("generation_failed");
    await acceptFailure(db, reviewer, failed[0]?.caseId ?? "", { evidence: "content policy" });
    await resolveHold(db, finance, failed[0]?.holdRef ?? "", { kind: "release", note: "no charge", evidence: "usage" });
    await foldStatDeltas(db);
    const settle = (chargeMicros: number) => ({
      kind: "settle" as const,
      chargeMicros,
      note: "invoice",
      evidence: "usage",
    });
    await resolveHold(db, finance, of("delivery")[0]?.holdRef ?? "", settle(5_000));
    await resolveHold(db, finance, of("delivery")[1]?.holdRef ?? "", settle(10_000_000));
    await resolveHold(db, finance, failed[1]?.holdRef ?? "", settle(1));
    // The provider's own figures correct settled holds up and down (decision 077): a partial settle
    // of 5,000 is charged 12,000 (+7,000) and then refunded 4,000 (-4,000); an overage of 10,000,000
    // is charged 9,500,000 (-500,000).
    const [partly, over] = of("delivery");
    await importCharges(finance, partly?.holdRef, ["0.012"]);
    await foldStatDeltas(db);
    await importCharges(finance, partly?.holdRef, ["-0.004"]);
    await importCharges(finance, over?.holdRef, ["9.5"]);
    const kinds = await db.ledgerEntry.findMany({ where: { kind: "adjustment" }, select: { amountMicros: true } });
    expect(kinds.map((e) => Number(e.amountMicros)).sort((a, b) => a - b)).toEqual([-500_000, -4_000, 7_000]);
    // A resolved case parked again opens a new episode with a new hold.
    const reopened = parked.find((p) => p.caseId === failed[0]?.caseId);
    const case0 = await db.case.findUniqueOrThrow({
      where: { id: reopened?.caseId ?? "" },
      include: { operation: true },
    });
    await parkCase(db, case0.producer === studio.name ? studio : shop, {
      ...parkInput("submission_uncertain", {
        operationId: case0.operationId,
        provider: case0.provider as ProviderName,
        model: case0.model,
      }),
      attemptId: `${case0.attemptId}-2`,
      requestFingerprint: case0.registeredFingerprint,
      hold: { holdId: `${case0.operationId}-second`, amountMicros: 77_000, currency: "EUR" },
    });
    // A case closed by hand (as an operator's SQL would) leaves the figures right too.
    await db.$executeRaw`UPDATE cases SET state = 'resolved' WHERE id = ${of("polling")[2]?.caseId ?? ""}::uuid`;

    for (const now of nowsAround(T0)) await expectFiguresMatch(db, finance, now);
    await foldStatDeltas(db);
    await expectFiguresMatch(db, finance, T0);

    // A database set to a zone whose days end on the half hour changes no figure: sessions run in UTC.
    const name = new URL(url).pathname.slice(1);
    await owner.$executeRawUnsafe(`ALTER DATABASE "${name}" SET timezone = 'Asia/Kolkata'`);
    const kolkata = createPrismaClient(url, 2);
    try {
      for (const now of nowsAround(T0).slice(0, 6)) await expectFiguresMatch(kolkata, finance, now);
    } finally {
      await kolkata.$disconnect();
    }
    // About 150 full-scan comparisons: the limit only catches a hang, not slowness on a loaded machine.
  }, 180_000);

  it("equal what stat_rebuild() computes from the rows", async () => {
    const kept = await runningTotals(db);
    await owner.$executeRaw`SELECT stat_rebuild()`;
    expect(await runningTotals(db)).toEqual(kept);
    expect(kept.length).toBeGreaterThan(0);
    // Every figure row names its producer, and both producers have figures of their own.
    const producers = new Set((kept as { producer: string | null }[]).map((t) => t.producer));
    expect([...producers].sort()).toEqual([shop.name, studio.name]);
    for (const now of nowsAround(T0).slice(0, 3)) await expectFiguresMatch(db, await makeUser(db, ["finance"]), now);
  });

  it("count the adjustments booked before the figure existed, once, through the migration's backfill", async () => {
    const kept = await runningTotals(db);
    expect(kept.some((t) => (t as { figure: string }).figure === "adjustment")).toBe(true);
    const sql = readFileSync("prisma/migrations/20261207190000_adjustments_in_running_totals/migration.sql", "utf8");
    const end = "GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;";
    const backfill = sql.slice(sql.indexOf("INSERT INTO stat_deltas"), sql.indexOf(end) + end.length);
    // Before the migration the trigger counted no adjustment figure: none in the totals, as then.
    await owner.$executeRaw`DELETE FROM stat_deltas WHERE figure = 'adjustment'`;
    await owner.$executeRaw`DELETE FROM stat_totals WHERE figure = 'adjustment'`;
    await owner.$executeRawUnsafe(backfill);
    expect(await runningTotals(db)).toEqual(kept);
  });

  it("stay exact under concurrent registrations and replays", async () => {
    const wide = createPrismaClient(url, 16);
    try {
      const inputs = Array.from({ length: 40 }, (_, i) => parkInput(i % 2 ? "polling" : "submission_uncertain"));
      await Promise.all([...inputs, ...inputs].map((input) => parkCase(wide, shop, input)));
      const kept = await runningTotals(db);
      await owner.$executeRaw`SELECT stat_rebuild()`;
      expect(await runningTotals(db)).toEqual(kept);
    } finally {
      await wide.$disconnect();
    }
  });
});
