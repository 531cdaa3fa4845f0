import { AuditStream } from "./audit-stream";
import { type ActionTime, Backlog } from "./backlog";
import {
  type AuditRow,
  type CaseView,
  eventsJson,
  eventsSql,
  loadAllCaseViews,
  toView,
  type ViewRow,
  viewsSql,
} from "./case-views";
import { canonicaliseCtes } from "./db-time";
import { sentOutsidePermits } from "./invoices";
import { checkPermits } from "./permit-checks";
import { PromiseChecks } from "./promise-checks";
import { count, type Figure, learnCase, opKey, opOfCase, opOfOperationId, violate, type World } from "./world";

const EVENTS_PER_READ = 5_000;

/**
 * Checks the product's records after every step (the cases the step touched, read back from the
 * database) and everything once more at the end. Each problem is counted once per case version or
 * per hold, so a figure is the number of distinct things that went wrong.
 */
export class Auditor {
  readonly stream = new AuditStream();
  readonly backlog = new Backlog();
  /** Every case as of the last step that touched it (every change to a case leaves an audit event). */
  readonly latest = new Map<string, CaseView>();
  private lastEventId = 0;
  private readonly reported = new Set<string>();
  private createsSeen = 0;
  readonly promise: PromiseChecks;
  steps = 0;

  constructor(private readonly world: World) {
    this.promise = new PromiseChecks(world, (key, figure, operation, detail) =>
      this.once(key, figure, operation, detail),
    );
  }

  /**
   * One statement after every step: the audit events written since the last step, the time
   * columns those cases' actions (and fresh webhook schedules) were given, re-encoded (see
   * DbTime), and the touched cases as they are now. Returns the views and how many rows became due.
   */
  async afterStep(): Promise<CaseView[]> {
    this.steps += 1;
    const views: CaseView[] = [];
    for (;;) {
      const { rows } = await this.world.sql.query<{
        events: AuditRow[];
        views: ViewRow[];
        actions: ActionTime[];
        webhooks: string[];
        permits: number[];
      }>(`
        WITH ev AS (${eventsSql(String(this.lastEventId), EVENTS_PER_READ)}),
        touched AS (SELECT DISTINCT case_id FROM ev WHERE case_id IS NOT NULL),
        ${canonicaliseCtes(this.world.clock, "SELECT case_id FROM touched")}
        SELECT (${eventsJson("ev")}) AS events,
               (SELECT coalesce(json_agg(v), '[]') FROM (${viewsSql("c.id IN (SELECT case_id FROM touched)")}) v) AS views,
               (SELECT coalesce(json_agg(json_build_object('caseId', case_id, 'lease', lease, 'quantum', quantum, 'due', due)), '[]')
                FROM fresh_actions) AS actions,
               (SELECT coalesce(array_agg(quantum::text), '{}') FROM fresh_outbox) AS webhooks,
               (SELECT coalesce(array_agg(quantum), '{}') FROM fresh_permits) AS permits`);
      const row = rows[0];
      if (!row) break;
      for (const event of row.events) {
        this.lastEventId = event.id;
        this.backlog.onEvent(event);
        this.promise.onEvent(event);
        for (const problem of this.stream.apply(event)) {
          this.once(
            `${problem.figure}:${event.id}`,
            problem.figure,
            opOfCase(this.world, problem.caseId),
            problem.detail,
          );
        }
      }
      this.backlog.onCanonicalised(row.actions, row.webhooks.map(Number), row.permits);
      for (const view of row.views.map(toView)) {
        learnCase(this.world, view.id, view.producer, view.operationId);
        this.latest.set(view.id, view);
        views.push(view);
      }
      if (row.events.length < EVENTS_PER_READ) break;
    }
    this.checkCreates();
    for (const view of views) {
      this.checkCase(view, false);
      this.promise.afterView(view);
    }
    return views;
  }

  /** Everything, after the run: every case, every hold, every operation and every paid generation. */
  async final(): Promise<void> {
    await this.afterStep();
    const views = await loadAllCaseViews(this.world.sql);
    for (const view of views) this.checkCase(view, true);
    await this.promise.final(views);
    for (const op of this.world.ops) {
      // A send under a permit may end without a case (completed, or refused and released): checkPermits says.
      if (!op.caseId && !op.plan.permit)
        this.once(`unparked:${op.plan.index}`, "lostOrStuck", op.plan.index, "the job was never registered");
    }
    await checkPermits(this.world, (key, figure, operation, detail) => this.once(key, figure, operation, detail));
    await this.checkPaidGenerations();
    await this.checkJobOwners();
  }

  private checkCreates(): void {
    const recovery = this.world.simulator.state.createCount() - this.world.producerCreates;
    if (recovery > this.createsSeen) {
      this.createsSeen = recovery;
      violate(
        this.world,
        "recoveryCreates",
        null,
        `the provider saw ${recovery} create calls nobody in the producer made`,
      );
    }
  }

  private checkCase(view: CaseView, final: boolean): void {
    const op = opOfCase(this.world, view.id);
    const at = `${view.id}:${view.version}`;
    const track = this.stream.cases.get(view.id);
    if (!track || track.version !== view.version || track.stage !== view.stage || track.state !== view.state) {
      const logged = track ? `${String(track.stage)}/${String(track.state)} v${track.version}` : "nothing";
      this.once(
        `row:${at}`,
        "changesWithoutOneAudit",
        op,
        `the case is ${view.stage}/${view.state} v${view.version}, the audit log says ${logged}`,
      );
    }
    const wanted = view.state === "ready" || view.state === "claimed" ? view.state : null;
    const live = view.liveActions;
    const consistent = wanted ? live.length === 1 && live[0]?.status === wanted : live.length === 0;
    if (!consistent) {
      this.once(`live:${at}`, "lostOrStuck", op, `case ${view.state} with live actions [${live.map((a) => a.status)}]`);
    }
    if (view.state === "parked" && track && !track.evidenced) {
      this.once(`evidence:${at}`, "lostOrStuck", op, `parked in ${view.stage} without evidence`);
    }
    if (final && wanted) this.once(`final:${view.id}`, "lostOrStuck", op, `left ${view.state} after the run drained`);
    this.checkHolds(view, op);
  }

  private checkHolds(view: CaseView, op: number | null): void {
    let open = 0;
    for (const hold of view.holds) {
      const held = hold.status === "held" ? hold.amount : 0;
      open += held;
      const balanced =
        hold.reserveEntries === hold.amount &&
        held + hold.settled + hold.released === hold.amount &&
        hold.settleEntries === hold.settled &&
        hold.releaseEntries === hold.released;
      if (!balanced) {
        this.once(
          `hold:${hold.holdId}:${hold.status}`,
          "holdImbalances",
          op,
          `hold ${hold.holdId}: reserved ${hold.reserveEntries}, held ${held}, settled ${hold.settled}, released ${hold.released}`,
        );
      }
      if ((hold.released > 0 || hold.status === "released") && !hold.decidedByFinance) {
        this.once(
          `release:${hold.holdId}`,
          "releasesWithoutFinance",
          op,
          `hold ${hold.holdId} released by no finance user`,
        );
      }
      const audits = this.stream.holdAudits(view.id, hold.holdId);
      if (audits.reserved !== 1 || audits.resolved !== (hold.status === "held" ? 0 : 1)) {
        this.once(
          `holdaudit:${hold.holdId}:${hold.status}`,
          "changesWithoutOneAudit",
          op,
          `hold ${hold.holdId} is ${hold.status} with ${audits.reserved} reserve and ${audits.resolved} resolution events`,
        );
      }
    }
    if (open !== view.heldMicros) {
      this.once(
        `held:${view.id}:${view.version}:${view.heldMicros}`,
        "heldTotalMismatches",
        op,
        `case holds ${view.heldMicros} but its open holds add up to ${open}`,
      );
    }
  }

  /** Paid generations per operation (jobs the provider accepted) against 1 + authorised replacements. */
  private async checkPaidGenerations(): Promise<void> {
    const paid = new Map<string, number>();
    for (const job of this.world.simulator.state.jobs.values()) {
      if (!job.createdByApi) continue;
      const input = job.input as { operation?: unknown; shop?: unknown };
      const shop = this.world.producers[Number(input.shop)]?.principal.name ?? "";
      const operation = opKey(shop, String(input.operation));
      paid.set(operation, (paid.get(operation) ?? 0) + 1);
    }
    const { rows } = await this.world.sql.query<{ producer: string; operationId: string; authorised: number }>(
      `SELECT c.producer, c.operation_id AS "operationId",
              count(r.id) FILTER (WHERE r.status = 'authorized')::int AS authorised
       FROM cases c LEFT JOIN replacement_requests r ON r.case_id = c.id GROUP BY c.producer, c.operation_id`,
    );
    const authorised = new Map(rows.map((row) => [opKey(row.producer, row.operationId), 1 + row.authorised]));
    for (const [operation, generations] of paid) {
      const index = this.world.byOperationId.get(operation) ?? null;
      // A generation the shop chose to make for a new episode is paid on purpose.
      // So is a create the shop's unguarded client sent again on purpose: "paid duplicates not flagged" checks it.
      const own =
        index === null ? 0 : (this.world.ops[index]?.ownResubmissions ?? 0) + sentOutsidePermits(this.world, index);
      const allowed = (authorised.get(operation) ?? 1) + own;
      this.world.counters.set("paid generations", (this.world.counters.get("paid generations") ?? 0) + generations);
      if (generations > allowed) {
        this.once(
          `paid:${operation}`,
          "paidBeyondAuthorised",
          index,
          `${generations} paid generations, ${allowed} authorised`,
        );
      }
    }
  }

  /**
   * Rule 17, as a shop would notice it: a published video or a settled hold whose job the simulator
   * made for another operation (its create carried that operation and shop) went to the wrong one,
   * although the provider's evidence proved whose it was: a signed reference fixed to another
   * attempt, or the provider's signed copy of the request differing from the operation's. Without
   * any evidence (a park naming another shop's job at a provider that sends no webhooks) nothing
   * tells the product, and that is counted, not a violation (decision 038).
   */
  private async checkJobOwners(): Promise<void> {
    const { rows } = await this.world.sql.query<{
      kind: string;
      producer: string;
      operation: string;
      job: string;
      what: string;
      proven: boolean;
    }>(
      `WITH owned AS (
         SELECT 'asset' AS kind, o.producer, o.operation_id, t.id AS attempt, t.provider, t.provider_job_id AS job,
                o.request_fingerprint, a.storage_key AS what
         FROM assets a JOIN attempts t ON t.id = a.attempt_ref JOIN operations o ON o.id = t.operation_ref
         WHERE t.provider_job_id IS NOT NULL
         UNION ALL
         SELECT 'hold', o.producer, o.operation_id, t.id, t.provider, t.provider_job_id, o.request_fingerprint, h.hold_id
         FROM holds h JOIN attempts t ON t.id = h.attempt_ref JOIN operations o ON o.id = t.operation_ref
         WHERE h.status = 'settled' AND t.provider_job_id IS NOT NULL)
       SELECT kind, producer, operation_id AS operation, job, what,
              EXISTS (SELECT 1 FROM job_references r WHERE r.provider = owned.provider AND r.provider_job_id = owned.job
                        AND r.attempt_ref <> owned.attempt)
              OR EXISTS (SELECT 1 FROM provider_webhooks w WHERE w.provider = owned.provider AND w.provider_job_id = owned.job
                           AND w.request_fingerprint <> owned.request_fingerprint) AS proven
       FROM owned ORDER BY 1, 5`,
    );
    const conflicts = await this.world.sql.query<{ outcome: string; n: number }>(
      "SELECT outcome, count(*)::int AS n FROM job_claim_conflicts GROUP BY outcome ORDER BY outcome",
    );
    for (const { outcome, n } of conflicts.rows)
      count(this.world, `claims on one job, kept with the evidence: ${outcome}`, n);
    for (const row of rows) {
      const creator = this.world.byJob.get(row.job)?.index;
      const owner = opOfOperationId(this.world, row.producer, row.operation);
      if (creator === undefined || creator === owner) continue;
      if (!row.proven) {
        count(
          this.world,
          `${row.kind === "asset" ? "files" : "holds"} on another operation's job, with no evidence from the provider`,
        );
        continue;
      }
      const figure = row.kind === "asset" ? "bytesToAnotherOperation" : "holdsSettledByAnotherJob";
      const what = row.kind === "asset" ? `file ${row.what}` : `hold ${row.what}`;
      this.once(
        `owner:${row.kind}:${row.what}`,
        figure,
        owner,
        `${what} rests on job ${row.job}, created by operation ${creator}`,
      );
    }
  }

  private once(key: string, figure: Figure, operation: number | null, detail: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    violate(this.world, figure, operation, detail);
  }
}
