import { createPrismaClient } from "../../lib/db/client";
import type { Principal } from "../../lib/domain/principal";
import { dryRunBulk, executeBulk } from "../../lib/services/case/bulk-cases";
import { listCases } from "../../lib/services/case/list-cases";
import { listCasesSchema } from "../../lib/validation/list-cases";
import { BULK_MODEL, bulkRows, rawBulkApprove, seedParked } from "./lib/queue-bulk";
import { measured, postmasterOf } from "./lib/queue-machine";
import { sql } from "./lib/queue-seed";
import type { BenchCheck, BenchContext, BenchPart, BenchRow } from "./lib/types";

/**
 * Bulk approval of 10,000 parked polling cases chosen by one filter, through the services the
 * queue's bulk bar and `POST /api/v1/cases/bulk` call (the dry run, then its execution, whose
 * approvals go 500 cases to a statement), against writing the same rows with hand-written SQL in
 * one transaction; meanwhile the queue's own listing runs again and again on another connection.
 */
const PART = "bulk-approve";
const CASES = 10_000;
const OTHERS = 2_000;
const EVIDENCE = "provider incident over: resume the status checks";
const REVIEWER = { email: "bulk-reviewer@example.com", name: "Bulk Reviewer" };
/** The console's queue page timed while nothing else runs, for this long, before the bulk approval. */
const IDLE_MS = 2_000;

const p95 = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? 0;
};

async function prepare(ctx: BenchContext, name: string) {
  const url = await ctx.createDatabase(name);
  await seedParked(url, { count: CASES, others: OTHERS });
  const [reviewer] = await sql<{ id: string }>(
    url,
    `INSERT INTO users (email, name, roles) VALUES ($1, $2, ARRAY['reviewer']::"Role"[]) RETURNING id`,
    [REVIEWER.email, REVIEWER.name],
  );
  const [operator] = await sql<{ id: string }>(
    url,
    `INSERT INTO users (email, name, roles) VALUES ('bulk-operator@example.com', 'Operator', ARRAY['operator']::"Role"[])
     RETURNING id`,
  );
  if (!reviewer || !operator) throw new Error("no users");
  return { url, reviewerId: reviewer.id, operatorId: operator.id };
}

export default {
  name: PART,
  async run(ctx: BenchContext) {
    const raw = await prepare(ctx, "bulk_raw");
    const product = await prepare(ctx, "bulk_product");
    const postmaster = await postmasterOf(raw.url);

    const rawRun = await measured(postmaster, async () => {
      const started = performance.now();
      const approved = await rawBulkApprove(raw.url, {
        reviewerId: raw.reviewerId,
        reviewerEmail: REVIEWER.email,
        evidence: EVIDENCE,
      });
      return { seconds: (performance.now() - started) / 1000, approved };
    });

    // The console: the queue's default page (open cases, oldest first), as an operator sees it.
    const consoleDb = createPrismaClient(product.url, 2);
    const operator: Principal = {
      kind: "user",
      userId: product.operatorId,
      email: "bulk-operator@example.com",
      name: "Operator",
      roles: ["operator"],
      producers: null,
    };
    const query = listCasesSchema.parse({});
    const probe = async () => {
      const started = performance.now();
      await listCases(consoleDb, operator, query);
      return performance.now() - started;
    };
    const idle: number[] = [];
    const during: number[] = [];
    const db = createPrismaClient(product.url, 4);
    try {
      for (let i = 0; i < 10; i++) await probe();
      for (const until = performance.now() + IDLE_MS; performance.now() < until; ) idle.push(await probe());
      const reviewer: Principal = {
        kind: "user",
        userId: product.reviewerId,
        ...REVIEWER,
        roles: ["reviewer"],
        producers: null,
      };
      await db.$queryRaw`SELECT 1`;
      const productRun = await measured(postmaster, async () => {
        let running = true;
        const watching = (async () => {
          while (running) during.push(await probe());
        })();
        // Choosing the cases is part of the figure, as the baseline's one statement chooses them too.
        const action = { verb: "approve", evidence: EVIDENCE } as const;
        const target = { kind: "filter", filter: { model: BULK_MODEL, stage: "polling", state: "parked" } } as const;
        const started = performance.now();
        const preview = await dryRunBulk(db, reviewer, { mode: "dry_run", action, target }, CASES);
        const previewed = performance.now();
        const result = await executeBulk(db, reviewer, { mode: "execute", action, target, token: preview.token });
        const seconds = (performance.now() - started) / 1000;
        running = false;
        await watching;
        return { seconds, dryRunSeconds: (previewed - started) / 1000, preview, result };
      });
      const share = (run: { foreignShare?: number }) =>
        run.foreignShare === undefined ? "" : `, others used ${(run.foreignShare * 100).toFixed(0)}% of the CPUs`;
      ctx.log(`bulk-approve: raw ${rawRun.value.seconds.toFixed(2)} s${share(rawRun)}`);
      ctx.log(
        `bulk-approve: product ${productRun.value.seconds.toFixed(2)} s (dry run ${productRun.value.dryRunSeconds.toFixed(2)} s)${share(productRun)}; listCases ${idle.length} idle, ${during.length} during`,
      );

      const rows: BenchRow[] = [
        {
          part: PART,
          metric: `approve ${CASES.toLocaleString("en-US")} polling cases chosen by one filter`,
          value: productRun.value.seconds,
          unit: "s",
          better: "lower",
          baseline: { label: "same rows, raw SQL, one transaction", value: rawRun.value.seconds },
          target: "<= 2.0x raw (ratio >= 0.5)",
        },
        {
          part: PART,
          metric: `console listCases p95 during the bulk approval (${during.length} calls)`,
          value: p95(during),
          unit: "ms",
          better: "lower",
          baseline: { label: `idle, ${idle.length} calls`, value: p95(idle) },
          target: "stays responsive (p95 <= 2x idle, ratio >= 0.5)",
        },
      ];
      const productRows = await bulkRows(product.url);
      const rawRows = await bulkRows(raw.url);
      const { preview, result } = productRun.value;
      const perCase = (rows: typeof productRows) =>
        rows.ready === CASES &&
        rows.targeted === CASES &&
        rows.oneDecision === CASES &&
        rows.oneAction === CASES &&
        rows.oneEvent === CASES &&
        rows.othersTouched === 0;
      const checks: BenchCheck[] = [
        {
          part: PART,
          name: "every targeted case approved once: its own decision, action and audit event",
          ok:
            perCase(productRows) &&
            preview.willAct === CASES &&
            result.applied === CASES &&
            result.skipped.length === 0 &&
            productRows.namingBulk === CASES,
          detail: `${result.applied} approved, ${result.skipped.length} skipped; ${productRows.namingBulk} events name the bulk action; ${productRows.ready} ready, ${productRows.oneDecision} with one decision, ${productRows.oneAction} with one action, ${productRows.oneEvent} with one approved event; ${productRows.othersTouched} other cases touched`,
        },
        {
          part: PART,
          name: "the raw baseline wrote the same rows",
          ok: perCase(rawRows) && rawRun.value.approved === CASES && rawRows.fingerprint === productRows.fingerprint,
          detail: `raw approved ${rawRun.value.approved}; content fingerprint ${rawRows.fingerprint === productRows.fingerprint ? "equal" : `differs (${rawRows.fingerprint} vs ${productRows.fingerprint})`}`,
        },
      ];
      return { rows, checks };
    } finally {
      await db.$disconnect();
      await consoleDb.$disconnect();
    }
  },
} satisfies BenchPart;
