import { beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@/lib/db/client";
import { env } from "@/lib/env";
import type { UserActor } from "@/lib/services/access/actor";
import { authenticateToken } from "@/lib/services/access/authenticate-token";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { listAssignableUsers } from "@/lib/services/admin/list-assignable-users";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { listAlertFirings } from "@/lib/services/alert/list-alert-firings";
import { addNote } from "@/lib/services/case/add-note";
import { assignCase } from "@/lib/services/case/assign-case";
import { dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { caseNeighbours } from "@/lib/services/case/case-neighbours";
import { countCases, openCasesByStage } from "@/lib/services/case/count-cases";
import { getCase } from "@/lib/services/case/get-case";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { queueFilterOptions } from "@/lib/services/case/queue-filter-options";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { exportCaseEvidence, exportFilterEvidence } from "@/lib/services/evidence/export-evidence";
import { exportFinanceCsv } from "@/lib/services/finance/export-ledger";
import { getFinanceTotals } from "@/lib/services/finance/finance-totals";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { listPendingReplacementRequests } from "@/lib/services/replacement/list-replacement-requests";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { listSpendLimits } from "@/lib/services/spend-limit/list-spend-limits";
import { setSpendLimit } from "@/lib/services/spend-limit/set-spend-limit";
import { setUserProducersSchema, setUserRolesSchema } from "@/lib/validation/admin";
import { listAlertFiringsSchema } from "@/lib/validation/alerts";
import { listHoldsSchema } from "@/lib/validation/finance";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { parseInput } from "@/lib/validation/parse-input";
import { makeUser, parkInput, producer, registerProducers } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Issue 19, part 3 (decision 035): a person limited to some producers (an agency's shops) reads and
// decides only those producers' cases, in every service; another producer's case, hold or request
// is "not found", the same answer as an ID that does not exist. Both shops use the same operation
// IDs and currency, so nothing here can pass by the IDs or amounts differing.
const { db, url } = openTestDb();
const run = Date.now().toString(36);
const mine = producer(`scope-mine-${run}`);
const theirs = producer(`scope-theirs-${run}`);
const codeOf = (error: unknown) => (error as { code?: string }).code;
const query = (raw: Record<string, unknown> = {}) => listCasesSchema.parse({ limit: 50, ...raw });

let agency: UserActor;
let everyone: UserActor;
const ids = { mineUncertain: "", theirsUncertain: "", mineFailed: "", theirsFailed: "" };

/** A person as authentication resolves them: scope is read from the row with the roles. */
async function asResolved(user: UserActor): Promise<UserActor> {
  const { secret } = await createAccessToken(db, user, { kind: "personal", name: "scope" });
  const principal = await authenticateToken(db, secret);
  if (principal?.kind !== "user") throw new Error("token did not resolve to its user");
  return principal;
}

beforeAll(async () => {
  const admin = await makeUser(db, ["admin"]);
  const person = await makeUser(db, ["operator", "reviewer", "finance"]);
  await registerProducers(db, mine, theirs);
  await setUserProducers(
    db,
    admin,
    parseInput(setUserProducersSchema, { userId: person.userId, producers: [mine.name] }),
  );
  agency = await asResolved(person);
  everyone = await makeUser(db, ["operator", "reviewer", "finance"]);
  for (const [shop, key] of [
    [mine, "mine"],
    [theirs, "theirs"],
  ] as const) {
    // The same operation IDs under both producers.
    const uncertain = await parkCase(db, shop, parkInput("submission_uncertain", { operationId: `op-${run}-1` }));
    const failed = await parkCase(db, shop, parkInput("generation_failed", { operationId: `op-${run}-2` }));
    ids[`${key}Uncertain`] = String(uncertain.caseId);
    ids[`${key}Failed`] = String(failed.caseId);
  }
});

describe("a person limited to some producers", () => {
  it("carries the scope from the user row, and an empty scope is every producer", async () => {
    expect(agency.producers).toEqual([mine.name]);
    expect((await asResolved(everyone)).producers).toBeNull();
  });

  it("finds another producer's case by ID nowhere: read, neighbours, evidence, and every decision", async () => {
    await expect(getCase(db, agency, ids.theirsUncertain, env())).rejects.toMatchObject({ code: "not_found" });
    expect((await getCase(db, agency, ids.mineUncertain, env())).producer).toBe(mine.name);
    expect(await caseNeighbours(db, agency, query(), ids.theirsUncertain)).toEqual({ previous: null, next: null });
    await expect(exportCaseEvidence(db, agency, ids.theirsFailed, env())).rejects.toMatchObject({ code: "not_found" });

    const before = await tableCounts(db);
    const attempts = [
      () => addNote(db, agency, ids.theirsUncertain, { text: "looked" }),
      () => assignCase(db, agency, ids.theirsUncertain, { assigneeId: agency.userId }),
      () => requestReplacement(db, agency, ids.theirsFailed, { evidence: "the model failed" }),
    ];
    for (const attempt of attempts) expect(codeOf(await attempt().catch((e: unknown) => e))).toBe("not_found");
    expect(await tableCounts(db)).toEqual(before);
  });

  it("sees only its producers' rows in the queue, counts, search and pickers, even for a shared operation ID", async () => {
    const all = await listCases(db, agency, query({ q: `op-${run}-1` }));
    expect(all.items.map((item) => item.id)).toEqual([ids.mineUncertain]);
    const asked = await listCases(db, agency, query({ producer: theirs.name }));
    expect(asked.items).toEqual([]);
    expect(await countCases(db, agency, query({ q: `op-${run}` }))).toEqual({ count: 2, more: false });
    expect(await countCases(db, everyone, query({ q: `op-${run}` }))).toEqual({ count: 4, more: false });
    const options = await queueFilterOptions(db, agency);
    expect(options.producers).toEqual([mine.name]);
    const theirsByStage = await openCasesByStage(db, agency, [theirs.name]);
    expect(Object.values(theirsByStage).every((n) => n === 0)).toBe(true);
  });

  it("acts in bulk on its own producers' cases only, whether picked by ID or by filter", async () => {
    const picked = await dryRunBulk(db, agency, {
      mode: "dry_run",
      action: { verb: "note", text: "bulk look" },
      target: { kind: "ids", caseIds: [ids.mineUncertain, ids.theirsUncertain] },
    });
    expect(picked.cases.map((c) => c.caseId)).toEqual([ids.mineUncertain]);
    const filtered = await dryRunBulk(db, agency, {
      mode: "dry_run",
      action: { verb: "note", text: "bulk look" },
      target: { kind: "filter", filter: { q: `op-${run}` } },
    });
    expect(filtered.cases.map((c) => c.caseId).sort()).toEqual([ids.mineFailed, ids.mineUncertain].sort());
    const done = await executeBulk(db, agency, {
      mode: "execute",
      action: { verb: "note", text: "bulk look" },
      target: { kind: "ids", caseIds: [ids.mineUncertain, ids.theirsUncertain] },
      token: picked.token,
    });
    expect(done.applied).toBe(1);
    expect(await db.auditEvent.count({ where: { caseId: ids.theirsUncertain, kind: "note_added" } })).toBe(0);
  });

  it("exports evidence of a filter with its own producers' cases only", async () => {
    const packet = await exportFilterEvidence(db, agency, { q: `op-${run}` }, env());
    const producers = packet.document.packet.cases.map((c) => c.case.producer);
    expect(producers).toEqual([mine.name, mine.name]);
  });

  it("reads finance lists, figures and exports of its own producers only", async () => {
    const holds = await listHolds(db, agency, listHoldsSchema.parse({ status: "held", limit: 100 }));
    expect(new Set(holds.items.map((hold) => hold.producer))).toEqual(new Set([mine.name]));
    const asked = await listHolds(db, agency, listHoldsSchema.parse({ status: "held", producer: theirs.name }));
    expect(asked.items).toEqual([]);
    const csv = await exportFinanceCsv(db, agency, { from: "2026-01-01", to: "2026-12-31", kind: "holds" });
    expect(csv.body).toContain(mine.name);
    expect(csv.body).not.toContain(theirs.name);
    const theirTotals = await getFinanceTotals(db, agency, [theirs.name]);
    const everyonesTotals = await getFinanceTotals(db, everyone, [theirs.name]);
    expect(JSON.stringify(theirTotals)).not.toEqual(JSON.stringify(everyonesTotals));
    const stats = await overviewStats(db, agency, {
      alertWindowMinutes: 60,
      alertThreshold: 1000,
      producers: [theirs.name],
    });
    expect(stats.stages.every((stage) => stage.open === 0)).toBe(true);
  });

  it("cannot decide another producer's hold or replacement request", async () => {
    const hold = await db.hold.findFirstOrThrow({ where: { caseId: ids.theirsFailed } });
    const requester = await makeUser(db, ["reviewer"]);
    const { requestId } = await requestReplacement(db, requester, ids.theirsFailed, { evidence: "failed for good" });
    const pending = await listPendingReplacementRequests(db, agency);
    expect(pending.items.map((item) => item.id)).not.toContain(requestId);
    const before = await tableCounts(db);
    const settle = resolveHold(db, agency, hold.id, { kind: "release", note: "no charge", evidence: "invoice" });
    expect(codeOf(await settle.catch((e: unknown) => e))).toBe("not_found");
    const decline = declineReplacement(db, agency, requestId, { evidence: "not worth it" });
    expect(codeOf(await decline.catch((e: unknown) => e))).toBe("not_found");
    expect(await tableCounts(db)).toEqual(before);
  });

  it("sets and sees spend limits of its own producers only; alerts (every producer) are closed", async () => {
    await expect(
      setSpendLimit(db, agency, { currency: "SEK", producer: null, perHourMicros: 1, perDayMicros: null }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      setSpendLimit(db, agency, { currency: "SEK", producer: theirs.name, perHourMicros: 1, perDayMicros: null }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await setSpendLimit(db, agency, { currency: "SEK", producer: mine.name, perHourMicros: 5, perDayMicros: null });
    await setSpendLimit(db, everyone, { currency: "SEK", producer: theirs.name, perHourMicros: 7, perDayMicros: null });
    const limits = (await listSpendLimits(db, agency)).filter((limit) => limit.currency === "SEK");
    expect(limits.map((limit) => limit.producer)).toEqual([mine.name]);
    await expect(listAlertFirings(db, agency, parseInput(listAlertFiringsSchema, {}))).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("is never shown another producer's case through a provider job both name", async () => {
    // One provider account, two shops: shop B's delivery records a job; shop A's uncertain case is
    // suggested, and a reviewer tries to attach, that same job.
    const owned = parkInput("delivery", { operationId: `op-${run}-job` });
    const ownerCase = String((await parkCase(db, theirs, owned)).caseId);
    const job = owned.providerJobId ?? "";
    const { caseId } = await parkCase(db, mine, parkInput("submission_uncertain", { operationId: `op-${run}-3` }));
    await db.reconciliationSuggestion.create({
      data: {
        caseId: String(caseId),
        episode: 1,
        providerJobId: job,
        confidence: 90,
        matched: ["model"],
        providerStatus: "succeeded",
        jobCreatedAt: new Date(),
      },
    });
    const [seen] = (await getCase(db, agency, String(caseId), env())).suggestions;
    expect(seen).toMatchObject({ ownedElsewhere: true, ownerCaseId: null });
    const [seenByAll] = (await getCase(db, everyone, String(caseId), env())).suggestions;
    expect(seenByAll).toMatchObject({ ownedElsewhere: true, ownerCaseId: ownerCase });

    const attach = { verdict: "attach", providerJobId: job, evidence: "found in the dashboard" } as const;
    const refused = await reconcileCase(db, agency, String(caseId), attach).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "provider_job_in_use" });
    expect((refused as Error).message).not.toContain(ownerCase);
    const named = await reconcileCase(db, everyone, String(caseId), attach).catch((e: unknown) => e);
    expect((named as Error).message).toContain(ownerCase);
  });

  it("is not offered, and cannot be given, another producer's case", async () => {
    const admin = await makeUser(db, ["admin"]);
    const theirReviewer = await makeUser(db, ["reviewer"]);
    await setUserProducers(
      db,
      admin,
      parseInput(setUserProducersSchema, { userId: theirReviewer.userId, producers: [theirs.name] }),
    );
    const offered = await listAssignableUsers(db, everyone, mine.name);
    expect(offered.map((user) => user.id)).not.toContain(theirReviewer.userId);
    const refused = await assignCase(db, everyone, ids.mineUncertain, { assigneeId: theirReviewer.userId }).catch(
      (e: unknown) => e,
    );
    expect(codeOf(refused)).toBe("invalid_request");
  });
});

describe("a scoped person's queue at scale", () => {
  it("reads its producers' open cases through the producer-led index", async () => {
    const session = createPrismaClient(url, 1);
    try {
      await session.$executeRaw`SET enable_seqscan = off`;
      await db.$executeRaw`ANALYZE cases`;
      const index = "cases_open_producer_opened_at_id";
      // This read's own scans only: the transaction's counts, which no other connection's late
      // flush of its statistics can add to.
      const scans = (read: (tx: Db) => Promise<unknown>) =>
        session.$transaction(async (tx) => {
          await read(tx);
          const [row] = await tx.$queryRaw<{ n: bigint }[]>`SELECT pg_stat_get_xact_numscans(${index}::regclass) AS n`;
          return Number(row?.n ?? 0);
        });
      expect(await scans((tx) => listCases(tx, agency, query()))).toBeGreaterThan(0);
    } finally {
      await session.$disconnect();
    }
  });
});

describe("the admin's producer editor", () => {
  it("audits a change, takes effect on the next request, and never limits an admin", async () => {
    const admin = await makeUser(db, ["admin"]);
    const person = await makeUser(db, ["reviewer"]);
    const { secret } = await createAccessToken(db, person, { kind: "personal", name: "editor" });
    await setUserProducers(
      db,
      admin,
      parseInput(setUserProducersSchema, { userId: person.userId, producers: [theirs.name, mine.name, mine.name] }),
    );
    const resolved = await authenticateToken(db, secret);
    expect(resolved?.kind === "user" && resolved.producers).toEqual([mine.name, theirs.name].sort());
    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: "user_producers_changed" },
      orderBy: { id: "desc" },
    });
    expect(audit.after).toMatchObject({ id: person.userId, producers: [mine.name, theirs.name].sort() });

    await expect(
      setUserRoles(db, admin, parseInput(setUserRolesSchema, { userId: person.userId, roles: ["reviewer", "admin"] })),
    ).rejects.toMatchObject({ code: "invalid_request" });
    await expect(
      setUserProducers(db, admin, parseInput(setUserProducersSchema, { userId: admin.userId, producers: [mine.name] })),
    ).rejects.toMatchObject({
      code: "invalid_request",
    });
    await expect(
      setUserProducers(db, person, parseInput(setUserProducersSchema, { userId: person.userId, producers: [] })),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      Promise.resolve().then(() =>
        setUserProducers(
          db,
          admin,
          parseInput(setUserProducersSchema, { userId: person.userId, producers: ["no spaces allowed"] }),
        ),
      ),
    ).rejects.toMatchObject({ code: "invalid_request" });
    // The database refuses a limited admin too, whatever path a write takes.
    await expect(
      db.user.update({ where: { id: admin.userId }, data: { producerScope: [mine.name] } }),
    ).rejects.toThrow();

    await setUserProducers(db, admin, parseInput(setUserProducersSchema, { userId: person.userId, producers: [] }));
    const again = await authenticateToken(db, secret);
    expect(again?.kind === "user" && again.producers).toBeNull();
  });
});
