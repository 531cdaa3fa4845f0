import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { costOf } from "@/verification/simulator/costs";
import { providerJobIdOf } from "@/verification/simulator/providers";
import { type ImportedLine, INVOICE_FIGURES, type InvoiceFigure } from "./invoices";
import { count, producerOf, simJobOf, violate, type World } from "./world";

const money = (micros: bigint) => `${micros < 0n ? "-" : ""}${(micros < 0n ? -micros : micros).toString()} micro-units`;

/**
 * The figures about money the provider billed, read after the invoices were imported and
 * reconciled (./invoices.ts): paid duplicates the product did not flag, invoiced lines nothing
 * explains (a line names no hold and finance has not explained it as made outside the product),
 * and providers whose ledger differs from their invoice. The ledger is the product's own check
 * (`ledgerVersusInvoice`): the charges on the holds the lines name plus the outside charges, and
 * beside them the lines a hold took whose case is still uncertain, which wait to be applied until
 * its outcome is known (decision 077): ledger plus waiting lines must equal the invoice.
 */
export async function checkInvoices(world: World, lines: ImportedLine[]): Promise<void> {
  const open = lines.filter((line) => line.holdRef === null && !line.explained);
  const unexplained = new Set(open.map((line) => `${line.provider}\u0000${line.providerJobId}`));
  await checkPaidDuplicates(world, world.invoices.listed);
  for (const line of open) {
    const why = line.unmatchedReason ?? "unmatched";
    const known = line.providerJobId ? simJobOf(world, line.providerJobId) : undefined;
    count(world, `invoiced lines unexplained: ${line.provider}, ${why}, ${whose(world, known?.id)}`);
    count(world, `invoiced micro-units unexplained: ${line.provider}`, Number(line.amountMicros));
    invoiceFigure(world, "invoicedUnexplained", `${line.provider} line for ${line.providerJobId} (${why})`);
  }
  const outside = new Set(
    lines.filter((line) => line.explained).map((line) => `${line.provider}\u0000${line.providerJobId}`),
  );
  await explainUnbilledCharges(world, unexplained, outside);
  const finance = world.people.finance[0];
  if (!finance) throw new Error("no finance person");
  for (const gap of await ledgerVersusInvoice(world.db, finance)) {
    const [invoice, ledger, waiting] = [gap.invoiceMicros, gap.ledgerMicros, gap.waitingMicros].map(BigInt) as [
      bigint,
      bigint,
      bigint,
    ];
    count(world, `ledger minus invoice, micro-units: ${gap.provider} ${gap.currency}`, Number(ledger - invoice));
    count(
      world,
      `invoiced micro-units waiting for their case's outcome: ${gap.provider} ${gap.currency}`,
      Number(waiting),
    );
    // Not in the verdict: what is charged on holds no line names (decisions 080, 084).
    count(
      world,
      `ledger charges on holds no invoice line names, micro-units: ${gap.provider} ${gap.currency}`,
      Number(gap.notOnInvoiceMicros),
    );
    if (ledger + waiting !== invoice)
      invoiceFigure(
        world,
        "ledgerDiffersFromInvoice",
        `${gap.provider} ${gap.currency}: ledger ${money(ledger)} and waiting ${money(waiting)}, invoice ${money(invoice)}`,
      );
  }
}

/** Whose job an unexplained line bills, as the run knows it: what finance would have to find out. */
function whose(world: World, jobId: string | undefined): string {
  if (!jobId) return "a job the run does not know";
  if (world.invoices.outsidePermits.has(jobId)) return "a create sent again outside the permits";
  const index = world.byJob.get(jobId)?.index;
  const op = index === undefined ? undefined : world.ops[index];
  const attempt = op?.attempts.find((a) => a.jobId === jobId);
  if (!op || !attempt) return "a job no operation made";
  if (!op.caseId && !attempt.permitToken) return "the operation's own job, never registered";
  return attempt.producerKnowsJob
    ? "the operation's own job, the shop named another job in its place"
    : "the operation's own job, whose ID never reached the product";
}

/** Counted, and named in the run's details; not traced: a line's job ID is the provider's random one. */
function invoiceFigure(world: World, figure: InvoiceFigure, detail: string): void {
  world.invoices.figures[figure] += 1;
  world.invoices.details.push(`${INVOICE_FIGURES[figure]}: ${detail}`);
}

/**
 * A job a shop's client paid for outside its permits must have been on the list of charges no
 * operation explains when finance went through it; two paid jobs that delivered the same video must be a flagged pair once the product
 * published both. A pair of which the product published one copy or none cannot be seen by it
 * (the bytes never passed through it), and is counted, not a violation, unless its charge is on
 * the unexplained list.
 */
async function checkPaidDuplicates(world: World, onList: Set<string>): Promise<void> {
  const { state } = world.simulator;
  const listed = (jobId: string) => {
    const job = state.jobs.get(jobId);
    return job !== undefined && onList.has(`${job.provider}\u0000${providerJobIdOf(job)}`);
  };
  const paid = (jobId: string) => {
    const job = state.jobs.get(jobId);
    return job !== undefined && costOf(state.prices, job) > 0;
  };
  for (const [jobId, index] of world.invoices.outsidePermits) {
    if (!paid(jobId)) continue;
    count(world, "paid jobs sent outside the permits");
    if (!listed(jobId))
      violate(world, "paidDuplicatesUnflagged", index, `job ${jobId}, sent outside the permits, is not flagged`);
  }
  for (const [first, second] of world.invoices.identicalOutputs) {
    if (!paid(first) || !paid(second)) continue;
    const [a, b] = await Promise.all([publishedAssets(world, first), publishedAssets(world, second)]);
    if (a.length === 0 || b.length === 0) {
      count(world, "identical outputs the product never published both of");
      continue;
    }
    const { rows } = await world.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM output_duplicates
       WHERE (first_asset_id = ANY($1::uuid[]) AND second_asset_id = ANY($2::uuid[]))
          OR (first_asset_id = ANY($2::uuid[]) AND second_asset_id = ANY($1::uuid[]))`,
      [a, b],
    );
    count(world, "identical outputs the product published both of");
    if ((rows[0]?.n ?? 0) === 0 && !listed(first) && !listed(second))
      violate(
        world,
        "paidDuplicatesUnflagged",
        world.byJob.get(second)?.index ?? null,
        `jobs ${first} and ${second} delivered the same video and no pair is flagged`,
      );
  }
}

async function publishedAssets(world: World, jobId: string): Promise<string[]> {
  const job = world.simulator.state.jobs.get(jobId);
  if (!job) return [];
  const { rows } = await world.sql.query<{ id: string }>(
    `SELECT a.id::text FROM assets a JOIN attempts t ON t.id = a.attempt_ref
     WHERE t.provider = $1 AND t.provider_job_id = $2 AND a.published_at IS NOT NULL`,
    [job.provider, providerJobIdOf(job)],
  );
  return rows.map((row) => row.id);
}

/**
 * Holds the ledger charged that no invoice line names, by what the run knows of their job: the
 * job's own line is among the unexplained ones (attaching that line to the operation corrects the
 * hold), or was booked as an outside charge because the product could not attach it to the
 * operation (so the ledger charges the job twice: on the hold and outside), or the provider billed
 * the job nothing (failed, cancelled, never created), which no invoice line will ever correct, or
 * another send's shop named the job as its own, so its line went to that send's hold, and finance
 * did not move it to this send (decision 084).
 */
async function explainUnbilledCharges(world: World, unexplained: Set<string>, outside: Set<string>): Promise<void> {
  const { rows } = await world.sql.query<{ producer: string; holdId: string; provider: string; charged: string }>(
    `SELECT h.producer, h.hold_id AS "holdId", t.provider, sum(e.amount_micros)::text AS charged
     FROM ledger_entries e JOIN holds h ON h.id = e.hold_ref JOIN attempts t ON t.id = h.attempt_ref
     WHERE e.kind IN ('settle', 'overage', 'late_charge', 'adjustment')
       AND NOT EXISTS (SELECT 1 FROM usage_lines u WHERE u.hold_ref = h.id)
     GROUP BY h.producer, h.hold_id, t.provider HAVING sum(e.amount_micros) <> 0`,
  );
  const attempts = new Map(
    world.ops.flatMap((op) =>
      op.attempts.map(
        (attempt) => [`${producerOf(world, op).principal.name}\u0000${attempt.holdId}`, attempt] as const,
      ),
    ),
  );
  const { state } = world.simulator;
  for (const row of rows) {
    const jobId = attempts.get(`${row.producer}\u0000${row.holdId}`)?.jobId;
    const job = jobId ? state.jobs.get(jobId) : undefined;
    const why = !job
      ? "no job was created"
      : costOf(state.prices, job) === 0
        ? "the provider billed the job nothing"
        : unexplained.has(`${job.provider}\u0000${providerJobIdOf(job)}`)
          ? "the job's own line is unexplained"
          : outside.has(`${job.provider}\u0000${providerJobIdOf(job)}`)
            ? "the job's own line was booked as an outside charge, so the job is charged twice"
            : "the job's line went to another send's hold, whose shop named this job as its own";
    count(world, `holds charged with no invoice line: ${row.provider}, ${why}`);
    count(world, `holds charged with no invoice line, micro-units: ${row.provider}, ${why}`, Number(row.charged));
  }
}
