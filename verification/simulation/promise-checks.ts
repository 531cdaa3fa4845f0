import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { availableCaseActions } from "@/lib/domain/available-actions";
import { ROLES } from "@/lib/domain/roles";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { canBeSearched } from "@/lib/providers/capabilities";
import { outputAvailable, phaseOf } from "@/verification/simulator/jobs";
import type { AuditRow, CaseView } from "./case-views";
import { isFlaggedForFinance, NOT_DECISIONS } from "./product-hooks";
import { count, type Figure, opOfCase, opOfOperationId, simJobOf, type World } from "./world";

type Report = (key: string, figure: Figure, operation: number | null, detail: string) => void;

/**
 * Claims of one case's action in a row without the worker ever finishing it. Crashes and stalls
 * account for at most three per operation and episode; past the product's own poison threshold
 * (5) something repeats that no lease expiry will cure.
 */
const LOOPING_CLAIMS = 6;
/** Worker events that finish a claim one way or another. */
const FINISHES = new Set([
  "recovery_unresolved",
  "check_rescheduled",
  "claim_released",
  "generation_failure_observed",
  "recovery_succeeded",
]);

/**
 * The promise at the seams, checked from the database and the simulator's world model: files
 * intact, one hold per provider job, no replacement paid while the original was visible or on "no
 * job exists" where it could not be looked for, a next step for every open case, held money on
 * closed cases flagged, the ledger's totals balanced, and no action that loops.
 */
export class PromiseChecks {
  private readonly claimsInARow = new Map<string, number>();

  constructor(
    private readonly world: World,
    private readonly report: Report,
  ) {}

  onEvent(event: AuditRow): void {
    if (!event.caseId) return;
    if (FINISHES.has(event.kind)) this.claimsInARow.delete(event.caseId);
    if (event.kind !== "claimed") return;
    const claims = (this.claimsInARow.get(event.caseId) ?? 0) + 1;
    this.claimsInARow.set(event.caseId, claims);
    if (claims < LOOPING_CLAIMS) return;
    const index = opOfCase(this.world, event.caseId);
    this.report(
      `poison:${event.caseId}:${event.episode}`,
      "poisonActions",
      index,
      `claimed ${claims} times in a row without finishing`,
    );
    // Someone finds the cause after the loop was seen, so the run can drain.
    const op = index === null ? undefined : this.world.ops[index];
    if (op) op.storageFixed = true;
  }

  /** After every step, for each case the step touched. */
  afterView(view: CaseView): void {
    const held = view.holds.filter((hold) => hold.status === "held");
    if (view.state === "resolved" && held.length > 0 && !isFlaggedForFinance(view)) {
      const micros = held.reduce((sum, hold) => sum + hold.amount, 0);
      this.report(
        `resolvedHeld:${view.id}:${view.episode}`,
        "resolvedHeldUnflagged",
        opOfCase(this.world, view.id),
        `resolved (${view.outcome ?? "no outcome"}) with ${micros} micro-units held and no flag for finance`,
      );
    }
  }

  /** A replacement authorised now for the attempt whose job the world knows: visible and able to deliver? */
  atAuthorisation(operation: number, replacedAttemptId: string): void {
    const op = this.world.ops[operation];
    const attempt = op?.attempts.find((a) => a.attemptId === replacedAttemptId);
    const job = attempt?.jobId ? this.world.simulator.state.jobs.get(attempt.jobId) : undefined;
    if (!job || job.outcome === "failed" || job.outcome === "canceled") return;
    const now = this.world.clock.now();
    if (now < job.createdAt + job.notFoundForMs) {
      count(this.world, "replacements authorised while the original job existed but was not listed yet");
      return;
    }
    this.report(
      `visible:${operation}:${replacedAttemptId}`,
      "replacementsWhileVisible",
      operation,
      `replacement authorised for ${replacedAttemptId} while its job was listed at the provider`,
    );
  }

  async final(views: CaseView[]): Promise<void> {
    const noJob = await this.noJobEpisodes();
    for (const view of views) {
      this.afterView(view);
      if (view.state === "parked") this.checkNextStep(view, noJob.has(`${view.id}:${view.episode}`));
    }
    await this.checkUnsearchableReplacements();
    await this.checkFiles();
    await this.checkJobsOnHolds();
    await this.checkCompletedJobsCharged();
    await this.checkLedgerTotals();
  }

  /** `caseId:episode` of every episode a "no job exists" verdict was recorded in. */
  private async noJobEpisodes(): Promise<Set<string>> {
    const { rows } = await this.world.sql.query<{ key: string }>(
      `SELECT DISTINCT case_id::text || ':' || episode AS key FROM audit_events WHERE kind = 'reconciled_no_job'`,
    );
    return new Set(rows.map((row) => row.key));
  }

  /**
   * Rule 14 looks for the original job before paying again on "no job exists"; where the provider
   * cannot be searched no look can be made, so no replacement may be authorised on such a verdict.
   */
  private async checkUnsearchableReplacements(): Promise<void> {
    const { rows } = await this.world.sql.query<{ caseId: string; provider: string; episode: number }>(
      `SELECT a.case_id::text AS "caseId", c.provider, a.episode
       FROM audit_events a JOIN cases c ON c.id = a.case_id
       WHERE a.kind = 'replacement_authorized'
         AND EXISTS (SELECT 1 FROM audit_events n WHERE n.case_id = a.case_id AND n.episode = a.episode
                     AND n.kind = 'reconciled_no_job' AND n.id < a.id)
       ORDER BY c.operation_id, c.producer, a.episode`,
    );
    for (const row of rows) {
      if (canBeSearched(row.provider)) continue;
      this.report(
        `unsearchable:${row.caseId}:${row.episode}`,
        "unsearchableReplacements",
        opOfCase(this.world, row.caseId),
        `replacement authorised on "no job exists" although ${row.provider} cannot be searched for the original`,
      );
    }
  }

  /**
   * A parked case must offer some person a decision that can move it on (or wait for one already
   * asked). A replacement cannot be one where it would rest on "no job exists" at a provider that
   * cannot be searched: the product refuses it, so accepting the failure must remain.
   */
  private checkNextStep(view: CaseView, restsOnNoJob: boolean): void {
    const index = opOfCase(this.world, view.id);
    const op = index === null ? undefined : this.world.ops[index];
    if (view.pendingRequests.some((request) => !op?.expiredRequests.has(request.id))) return;
    const offered = availableCaseActions(
      {
        stage: view.stage as Stage,
        state: view.state as CaseState,
        providerJobId: view.providerJobId,
        ...(view.outputsUnavailable ? { outputsUnavailable: true as const } : {}),
      },
      ROLES,
    );
    const decisions = [...offered].filter((name) => !NOT_DECISIONS.has(name));
    const job = view.providerJobId ? simJobOf(this.world, view.providerJobId) : undefined;
    // Retrying a delivery whose files the provider deleted cannot succeed, whatever the console offers,
    // once the provider has shown the product the loss (until then, a retry is how it finds out).
    const shown = view.providerJobId ? this.world.lossShownAt.has(view.providerJobId) : false;
    const futile =
      view.stage === "delivery" && job !== undefined && !outputAvailable(job, this.world.clock.now()) && shown;
    const refused = restsOnNoJob && !canBeSearched(view.provider);
    const useful = decisions.filter(
      (name) => !(futile && name === "approve") && !(refused && name === "request_replacement"),
    );
    if (useful.length > 0) return;
    const why = futile ? "only a retry that cannot succeed" : refused ? "only a refused replacement" : "no decision";
    count(this.world, `open cases without a next step: ${view.stage}${futile ? " (outputs gone)" : ""}`);
    this.report(
      `nextStep:${view.id}`,
      "openWithoutNextStep",
      index,
      `parked in ${view.stage} with ${why} and nothing scheduled`,
    );
  }

  /** Every published file, read back from the storage directory, against the SHA-256 its row records. */
  private async checkFiles(): Promise<void> {
    const { rows } = await this.world.sql.query<{ caseId: string; key: string; sha256: string }>(
      // Ordered by what the seed decides (keys and IDs are not), so violations come in replay order.
      `SELECT s.case_id::text AS "caseId", s.storage_key AS key, s.sha256
       FROM assets s JOIN cases c ON c.id = s.case_id JOIN attempts a ON a.id = s.attempt_ref
       WHERE s.published_at IS NOT NULL
       ORDER BY c.operation_id, c.producer, a.attempt_id, s.fencing_token, s.output_index`,
    );
    for (const row of rows) {
      const bytes = await readFile(path.join(this.world.assetDir, row.key)).catch(() => null);
      const actual = bytes ? createHash("sha256").update(bytes).digest("hex") : "missing";
      count(this.world, "published files read back");
      if (actual === row.sha256.replace(/^sha256:/, "")) continue;
      // Keys and digests differ between runs of one seed, so the trace names neither.
      this.report(
        `file:${row.key}`,
        "overwrittenFiles",
        opOfCase(this.world, row.caseId),
        `a published file ${bytes ? "holds other bytes than its recorded SHA-256" : "is gone"}`,
      );
    }
  }

  /** One provider job's charge settles one hold: the attempts behind settled holds, grouped by job. */
  private async checkJobsOnHolds(): Promise<void> {
    const { rows } = await this.world.sql.query<{ provider: string; jobId: string; holds: number; caseId: string }>(
      `SELECT c.provider, a.provider_job_id AS "jobId", count(*)::int AS holds,
              (array_agg(c.id::text ORDER BY c.operation_id, c.producer))[1] AS "caseId"
       FROM holds h JOIN attempts a ON a.id = h.attempt_ref JOIN cases c ON c.id = h.case_id
       WHERE h.status = 'settled' AND a.provider_job_id IS NOT NULL
       GROUP BY c.provider, a.provider_job_id HAVING count(*) > 1
       ORDER BY min(c.operation_id), min(c.producer)`,
    );
    for (const row of rows) {
      this.report(
        `twoHolds:${row.provider}:${row.jobId}`,
        "jobsOnTwoHolds",
        opOfCase(this.world, row.caseId),
        `one ${row.provider} job settled on ${row.holds} holds`,
      );
    }
  }

  /**
   * DESIGN rule 18: a job the provider completed, and the product was shown completed (a status
   * check, the provider's webhook, the producer's report, a delivery), is charged somewhere in the
   * ledger. A hold still held is money accounted for; a released (or written-off) one must carry a
   * settle, an overage or a charge after release for the job. A completion nobody reported is the
   * write-off's known risk, left to the invoice; a job the attempt names but another operation made
   * (a producer naming another shop's job) is charged on that operation's hold, not this one.
   */
  private async checkCompletedJobsCharged(): Promise<void> {
    const { rows } = await this.world.sql.query<{
      jobId: string;
      caseId: string | null;
      holdId: string;
      producer: string;
      operationId: string;
    }>(
      `SELECT a.provider_job_id AS "jobId", h.case_id::text AS "caseId", h.hold_id AS "holdId", o.producer,
              o.operation_id AS "operationId"
       FROM holds h JOIN attempts a ON a.id = h.attempt_ref JOIN operations o ON o.id = a.operation_ref
       WHERE h.status = 'released' AND a.provider_job_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.hold_ref = h.id AND l.kind IN ('settle', 'overage', 'late_charge'))
         AND (EXISTS (SELECT 1 FROM provider_observations po WHERE po.attempt_ref = h.attempt_ref AND po.kind = 'completed')
              OR EXISTS (SELECT 1 FROM send_permits p WHERE p.hold_ref = h.id AND p.status = 'completed')
              OR EXISTS (SELECT 1 FROM cases c WHERE c.attempt_ref = h.attempt_ref AND c.stage = 'delivery'))
       ORDER BY a.provider_job_id`,
    );
    const now = this.world.clock.now();
    for (const row of rows) {
      const job = simJobOf(this.world, row.jobId);
      if (!job) continue;
      if (job.outcome !== "succeeded" || phaseOf(job, now) !== "done") continue;
      const creator = this.world.byJob.get(row.jobId)?.index;
      if (creator !== undefined && creator !== opOfOperationId(this.world, row.producer, row.operationId)) continue;
      this.report(
        `uncharged:${row.jobId}`,
        "completedWithoutCharge",
        row.caseId ? opOfCase(this.world, row.caseId) : null,
        `job ${row.jobId} completed at the provider; its hold ${row.holdId} was released with no charge recorded`,
      );
    }
  }

  /** Reserved = held + settled + released over the whole ledger, to the micro-unit. */
  private async checkLedgerTotals(): Promise<void> {
    const { rows } = await this.world.sql.query<{ difference: string }>(
      `SELECT ((SELECT coalesce(sum(amount_micros) FILTER (WHERE kind = 'reserve'), 0)
                     - coalesce(sum(amount_micros) FILTER (WHERE kind IN ('settle', 'release')), 0) FROM ledger_entries)
               - (SELECT coalesce(sum(amount_micros - settled_micros - released_micros), 0) FROM holds))::text AS difference`,
    );
    const difference = Math.abs(Number(rows[0]?.difference ?? 0));
    if (difference > 0)
      this.report("ledger", "ledgerUnbalanced", null, `the ledger is off by ${difference} micro-units`);
  }
}
