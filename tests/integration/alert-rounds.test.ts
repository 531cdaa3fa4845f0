import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import { ALERT_ROUND_INTERVAL_MS } from "@/lib/domain/alert-episodes";
import type { AlertRuleKind } from "@/lib/domain/alert-rules";
import { processShared } from "@/lib/process-shared";
import type { UserActor } from "@/lib/services/access/actor";
import { makeAlertRoundDue } from "@/lib/services/alert/alert-schedule";
import { evaluateAlerts } from "@/lib/services/alert/evaluate-alerts";
import { saveAlertDestination } from "@/lib/services/alert/save-alert-destination";
import { saveAlertRule } from "@/lib/services/alert/save-alert-rule";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { escalateOverdueCases } from "@/lib/services/case/escalate-overdue-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { alertDestinationBody, saveAlertRuleSchema } from "@/lib/validation/alerts";
import { parseInput } from "@/lib/validation/parse-input";
import { watchAlerts } from "@/lib/worker/alert-round";
import { dispatchNotifications } from "@/lib/worker/dispatch-notifications";
import { runTick } from "@/lib/worker/run-tick";
import type { WorkerContext } from "@/lib/worker/worker-context";
import { makeUser, parkInput, producer, worker } from "./fixtures";
import { type PlainReceiver, startPlainReceiver } from "./helpers/plain-receiver";
import { TEST_RECEIVERS, testWorkerContext } from "./helpers/worker-context";
import { openOwnerDb, openTestDb } from "./setup/test-db";

// How a round runs (decision 031, amendment 2026-12-04): on a schedule shared by every process,
// reading each figure once, each rule on its own, on the database's clock, with nothing but the
// rule's own writes in its transaction. Messages reach a real Slack-compatible receiver.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const { db: owner } = openOwnerDb();
const shop = producer("alert-rounds-shop");
const CONSOLE = "https://console.example.com";
const MINUTE = 60_000;
const past = (minutes: number) => new Date(Date.now() - minutes * MINUTE).toISOString();

let admin: UserActor;
let reviewer: UserActor;
let chat: PlainReceiver;
let chatId = "";
let ctx: WorkerContext;

const judge = (options: { now?: Date; db?: PrismaClient } = {}) =>
  evaluateAlerts(options.db ?? db, { consoleUrl: CONSOLE, now: options.now });
const schedule = () => db.alertSchedule.findUniqueOrThrow({ where: { id: true } });
const openFiring = (ruleId: string) => db.alertFiring.findFirst({ where: { ruleId, resolvedAt: null } });

async function escalatedCase(): Promise<string> {
  const { caseId } = await parkCase(db, shop, parkInput("generation_failed", { retryDeadline: past(5) }));
  await escalateOverdueCases(db, worker());
  return caseId;
}

/** A rule to the chat; saving it makes the round due, as for an admin. */
function rule(kind: AlertRuleKind, settings: { thresholdCount?: number; windowMinutes?: number } = {}) {
  return saveAlertRule(
    db,
    admin,
    parseInput(saveAlertRuleSchema, {
      name: `${kind} ${Math.random().toString(36).slice(2, 8)}`,
      kind,
      destinationId: chatId,
      ...settings,
    }),
  );
}

beforeAll(async () => {
  admin = await makeUser(db, ["admin"]);
  reviewer = await makeUser(db, ["reviewer"]);
  chat = await startPlainReceiver();
  const saved = await saveAlertDestination(
    db,
    admin,
    parseInput(alertDestinationBody, { name: "rounds channel", kind: "slack", url: chat.url }),
    { allow: TEST_RECEIVERS },
  );
  chatId = saved.destination.id;
  ctx = await testWorkerContext(db, "http://127.0.0.1:9", { consoleUrl: CONSOLE });
});
afterAll(async () => {
  await chat?.stop();
});
beforeEach(async () => {
  await db.alertRule.updateMany({ data: { enabled: false } });
});

describe("the round's schedule", () => {
  it("runs once per interval however often workers tick, and at once after a rule or destination is saved", async () => {
    await escalatedCase();
    const overdue = await rule("escalated_overdue");
    const tick = () => runTick(ctx, worker("rounds-worker"), { maxTasks: 1 });
    await tick();
    const taken = await schedule();
    expect(await openFiring(overdue.id)).not.toBeNull();
    // The next ticks come within seconds: no round until the interval has passed.
    await tick();
    expect(await schedule()).toEqual(taken);
    expect(await judge()).toBeNull();
    const at = taken.lastRunAt?.getTime() ?? 0;
    expect(await judge({ now: new Date(at + ALERT_ROUND_INTERVAL_MS - 1_000) })).toBeNull();
    expect(await judge({ now: new Date(at + ALERT_ROUND_INTERVAL_MS) })).toMatchObject({ evaluated: 1, fired: 0 });

    // A destination saved (here renamed), then a rule saved: each makes the very next round due.
    await saveAlertDestination(
      db,
      admin,
      parseInput(alertDestinationBody, { id: chatId, name: "rounds channel", kind: "slack", url: chat.url }),
      { allow: TEST_RECEIVERS },
    );
    expect(await judge()).toMatchObject({ evaluated: 1 });
    await rule("poison_actions", { thresholdCount: 1000 });
    expect(await judge()).toMatchObject({ evaluated: 2 });
  });

  it("lets the console take only a round the workers left untaken for an interval", async () => {
    await rule("suspected_duplicates", { thresholdCount: 1000 });
    const due = await schedule();
    await watchAlerts(ctx);
    expect(await schedule()).toEqual(due);
    await db.alertSchedule.update({
      where: { id: true },
      data: { nextRunAt: new Date(Date.now() - ALERT_ROUND_INTERVAL_MS - 1_000) },
    });
    await watchAlerts(ctx);
    expect((await schedule()).lastRunAt?.getTime()).toBeGreaterThan(due.lastRunAt?.getTime() ?? 0);
    expect(await judge()).toBeNull();
  });
});

describe("a round's figures", () => {
  it("are read once per kind and window: the case flags once for both flag rules", async () => {
    await rule("escalated_overdue", { thresholdCount: 1000 });
    await rule("resolved_money_held", { thresholdCount: 1000 });
    await rule("poison_actions", { thresholdCount: 1000, windowMinutes: 15 });
    await rule("poison_actions", { thresholdCount: 1000, windowMinutes: 15 });
    await rule("poison_actions", { thresholdCount: 1000, windowMinutes: 60 });
    // The same database and pool, each raw statement noted as it is sent.
    const sent: string[] = [];
    const noting = db.$extends({
      query: {
        async $allOperations({ operation, args, query }) {
          if (operation === "$queryRaw") sent.push(JSON.stringify(args));
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    expect(await judge({ db: noting })).toMatchObject({ evaluated: 5, failed: [] });
    const reads = (fragment: string) => sent.filter((statement) => statement.includes(fragment)).length;
    expect(reads("resolved_held")).toBe(1);
    expect(reads("escalated_at IS NOT NULL")).toBe(1);
    expect(reads("poison_parked")).toBe(2);
  });
});

describe("a rule that fails", () => {
  it("costs only itself: every other rule is judged, and the round reports the one", async () => {
    await escalatedCase();
    const failing = await rule("escalated_overdue");
    const other = await rule("escalated_overdue");
    await owner.$executeRawUnsafe(`
      CREATE FUNCTION alert_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await owner.$executeRawUnsafe(`
      CREATE TRIGGER alert_test_refuse BEFORE INSERT ON alert_firings FOR EACH ROW
      WHEN (NEW.rule_id = '${failing.id}') EXECUTE FUNCTION alert_test_refuse()`);
    try {
      const round = await judge();
      expect(round).toMatchObject({ evaluated: 1, fired: 1, failed: [{ ruleId: failing.id }] });
      expect(await openFiring(other.id)).not.toBeNull();
      expect(await openFiring(failing.id)).toBeNull();
    } finally {
      await owner.$executeRawUnsafe("DROP TRIGGER alert_test_refuse ON alert_firings");
      await owner.$executeRawUnsafe("DROP FUNCTION alert_test_refuse()");
    }
    // Tried again on the next round.
    await makeAlertRoundDue(db);
    expect(await judge()).toMatchObject({ fired: 1, failed: [] });
    expect(await openFiring(failing.id)).not.toBeNull();
  });
});

describe("worker silence", () => {
  it("is judged on the database's clock, on which heartbeats are stamped, whatever the app's clock says", async () => {
    const silence = await rule("worker_silence", { windowMinutes: 5 });
    await db.workerHeartbeat.upsert({
      where: { workerId: "rounds-clock" },
      create: { workerId: "rounds-clock" },
      update: {},
    });
    await db.$executeRaw`UPDATE worker_heartbeats SET last_tick_at = now() - interval '3 minutes'`;
    // This host's clock runs 5 minutes ahead of the database's.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 5 * MINUTE);
    try {
      expect(await judge()).toMatchObject({ evaluated: 1, fired: 0 });
    } finally {
      vi.useRealTimers();
    }
    await db.$executeRaw`UPDATE worker_heartbeats SET last_tick_at = now() - interval '6 minutes'`;
    await makeAlertRoundDue(db);
    expect(await judge()).toMatchObject({ fired: 1 });
    await dispatchNotifications(ctx, Date.now() + 10_000);
    const texts = chat.received.map((r) => (r.body as { text: string }).text);
    expect(texts.find((text) => text.includes(silence.name))).toContain("no worker has ticked for 6 min");
    const firing = await openFiring(silence.id);
    expect(firing?.startedAt).toEqual((await schedule()).lastRunAt);
  });
});

describe("the running totals' fold", () => {
  it("runs outside any rule's transaction, so the alert's transaction holds only its own writes", async () => {
    const { caseId } = await parkCase(db, shop, parkInput("generation_failed"));
    await acceptFailure(db, reviewer, caseId, { evidence: "provider reported the failure" });
    const held = await rule("resolved_money_held");
    // Which transaction folded and which wrote the firing, noted by triggers of the test's own.
    await owner.$executeRawUnsafe("CREATE TABLE alert_test_xacts (what text, xact xid8)");
    await owner.$executeRawUnsafe(`
      CREATE FUNCTION alert_test_note() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN INSERT INTO alert_test_xacts VALUES (TG_ARGV[0], pg_current_xact_id()); RETURN NULL; END $$`);
    await owner.$executeRawUnsafe(`CREATE TRIGGER alert_test_fold AFTER DELETE ON stat_deltas
      FOR EACH STATEMENT EXECUTE FUNCTION alert_test_note('fold')`);
    await owner.$executeRawUnsafe(`CREATE TRIGGER alert_test_firing AFTER INSERT ON alert_firings
      FOR EACH ROW EXECUTE FUNCTION alert_test_note('firing')`);
    try {
      // Enough pending deltas (of nothing) for a fold, and this process due to look at them.
      await db.$executeRaw`INSERT INTO stat_deltas (figure) SELECT 'alert_test' FROM generate_series(1, 2000)`;
      processShared("stat-fold-check", () => ({ lastCheck: 0 })).lastCheck = 0;
      expect(await judge()).toMatchObject({ fired: 1 });
      expect(await openFiring(held.id)).not.toBeNull();
      const noted = await owner.$queryRaw<{ what: string; xact: string }[]>`
        SELECT what, xact::text AS xact FROM alert_test_xacts`;
      const fold = noted.find((n) => n.what === "fold");
      const firing = noted.find((n) => n.what === "firing");
      expect(fold).toBeDefined();
      expect(firing).toBeDefined();
      expect(fold?.xact).not.toBe(firing?.xact);
      expect(await db.$queryRaw`SELECT count(*)::int AS n FROM stat_deltas WHERE figure = 'alert_test'`).toEqual([
        { n: 0 },
      ]);
    } finally {
      await owner.$executeRawUnsafe("DROP TRIGGER alert_test_fold ON stat_deltas");
      await owner.$executeRawUnsafe("DROP TRIGGER alert_test_firing ON alert_firings");
      await owner.$executeRawUnsafe("DROP FUNCTION alert_test_note()");
      await owner.$executeRawUnsafe("DROP TABLE alert_test_xacts");
    }
  });
});
