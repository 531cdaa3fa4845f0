import type { AuditRow } from "./case-views";

/** What the audit log says a case looks like; the case row must agree with it after every step. */
export type CaseTrack = {
  version: number;
  stage: unknown;
  state: unknown;
  /** Did the event that brought the case to its current stage and state carry evidence? */
  evidenced: boolean;
  /** The worker holding the case's claim, as the log tells it (claimed ... rescued or finished). */
  holder: string | null;
  episode: number;
  /** The episode in which the worker last searched the provider for this case. */
  searchedEpisode: number;
};

export type StreamProblem = {
  figure: "changesWithoutOneAudit" | "concurrentExecutions" | "backwardTransitions";
  caseId: string | null;
  detail: string;
};

/** Worker writes that end the claim they were made under. */
const ENDS_CLAIM = new Set([
  "recovery_unresolved",
  "check_rescheduled",
  "claim_released",
  "generation_failure_observed",
  "outputs_unavailable_observed",
  "recovery_succeeded",
]);
/**
 * Worker events that are not writes under a claim: taking one, rescuing one, a reconciliation search,
 * a deadline escalation (a flag on any open case; its same version is checked like any other event's),
 * the watch for a replaced original (a suspected-duplicate flag and a withdrawal), and a case parked
 * from a silent send permit.
 */
const NOT_UNDER_CLAIM = new Set([
  "claimed",
  "lease_rescued",
  "reconciliation_suggested",
  // The same suggestion drawn from a provider's unmatched webhook: written by the tick, never under a claim.
  "reconciliation_suggested_by_webhook",
  "deadline_escalated",
  "suspected_duplicate_flagged",
  // A publish flags a pair of identical videos on both cases (decision 072): the other case is under no claim of its own.
  "output_duplicate_flagged",
  "replacement_withdrawn",
  // The permit sweep parks a silent send as a case, with the hold the permit reserved: no claim exists yet.
  "hold_reserved",
  // ... or, for a replacement's permit, as a new episode of the operation's resolved case (decision 036).
  "reopened",
  // ... carrying finance's decision on that hold, taken while the send was in flight (DESIGN rule 18).
  "hold_decided_before_case",
  // A charge after release is booked on the completion's proof, whoever brings it (DESIGN rule 18):
  // a producer's report, a webhook, a status check or a delivery's stored outputs, in a transaction of its own.
  "charged_after_release",
]);

/** A hold's resolution on its case's timeline: finance's, or one it took before the send parked as the case. */
const HOLD_RESOLUTIONS = new Set(["hold_settled", "hold_released", "hold_written_off", "hold_decided_before_case"]);

const holdKey = (caseId: string, holdId: unknown) => `${caseId}:${String(holdId)}`;

/** A permit's audited moves, in the only order they may come; the last two end it. */
const PERMIT_STEPS: Record<string, number> = { permit_accepted: 1, permit_completed: 2, permit_rejected: 2 };
const isProviderWebhook = (event: AuditRow) => event.actorLabel.endsWith("webhook (signature verified)");

const hasEvidence = (value: unknown) =>
  typeof value === "object" && value !== null && Object.keys(value as object).length > 0;

/**
 * Reads the audit log in order and checks it event by event: each version step of a case has
 * exactly one event (before.version = the version so far, after.version = one more), events that
 * change nothing keep stage and state, each hold is reserved once and resolved at most once, and
 * every worker write comes from the worker that holds the case's claim at that point of the log.
 */
export class AuditStream {
  readonly cases = new Map<string, CaseTrack>();
  private readonly holdReserves = new Map<string, number>();
  private readonly holdResolutions = new Map<string, number>();
  /** The last audited move of each permit, by producer, operation and token. */
  private readonly permits = new Map<string, number>();
  /** Uncertain, parked cases that no reconciliation search has looked at in this episode yet. */
  private readonly unsearched = new Set<string>();

  searchesDue(): number {
    return this.unsearched.size;
  }

  /** A tick found nothing to search: whatever is listed here is not due for the product. */
  forgetSearches(): void {
    this.unsearched.clear();
  }

  apply(event: AuditRow): StreamProblem[] {
    const problems = this.check(event);
    const track = event.caseId ? this.cases.get(event.caseId) : undefined;
    if (track && event.caseId) {
      if (event.kind === "reconciliation_suggested") track.searchedEpisode = event.episode ?? track.episode;
      const due = track.stage === "submission_uncertain" && track.state === "parked";
      if (due && track.searchedEpisode !== track.episode) this.unsearched.add(event.caseId);
      else this.unsearched.delete(event.caseId);
    }
    return problems;
  }

  private check(event: AuditRow): StreamProblem[] {
    const problems: StreamProblem[] = [];
    const caseId = event.caseId;
    const problem = (figure: StreamProblem["figure"], detail: string) =>
      problems.push({ figure, caseId, detail: `${detail} (audit event ${event.id}, ${event.kind})` });
    const permitStep = PERMIT_STEPS[event.kind];
    if (permitStep !== undefined) this.checkPermitStep(event, permitStep, problem);
    if (!caseId) return problems;
    const before = event.before ?? {};
    const after = event.after ?? {};
    const track = this.cases.get(caseId);

    if (event.kind === "parked") {
      if (track) problem("changesWithoutOneAudit", "a second 'parked' event for one case");
      this.cases.set(caseId, {
        version: Number(after.version),
        stage: after.stage,
        state: after.state,
        evidenced: hasEvidence(event.evidence),
        holder: null,
        episode: event.episode ?? 1,
        searchedEpisode: 0,
      });
      return problems;
    }
    // Hold IDs are the producer's own: two shops may use the same text, so a hold is known by its case.
    if (event.kind === "hold_reserved") {
      this.countHold(this.holdReserves, holdKey(caseId, after.holdId), String(after.holdId), problem, "reserved");
    }
    if (HOLD_RESOLUTIONS.has(event.kind)) {
      this.countHold(this.holdResolutions, holdKey(caseId, before.holdId), String(before.holdId), problem, "resolved");
    }

    if (typeof before.version === "number" && typeof after.version === "number") {
      if (!track) {
        problem("changesWithoutOneAudit", "an event for a case that was never parked");
        return problems;
      }
      if (before.version !== track.version) {
        problem(
          "changesWithoutOneAudit",
          `event starts from version ${before.version}, the log is at ${track.version}`,
        );
      } else if (after.version === before.version) {
        if (after.stage !== before.stage || after.state !== before.state) {
          problem("changesWithoutOneAudit", "stage or state changed without a new version");
        }
      } else if (after.version === before.version + 1) {
        this.checkForward(track, event, after, problem);
        track.version = after.version;
        track.stage = after.stage;
        track.state = after.state;
        track.evidenced = hasEvidence(event.evidence);
        track.episode = event.episode ?? track.episode;
      } else {
        problem("changesWithoutOneAudit", `version jumped from ${before.version} to ${after.version}`);
      }
    }
    if (track && event.actorKind === "worker") this.checkHolder(track, event, problem);
    return problems;
  }

  /**
   * Nothing moves a case back within an episode: a resolved case changes only by reopening as a
   * new one, and the provider's word (a webhook, however late or stale) never makes a job
   * uncertain again nor moves a finished generation back to a job to check.
   */
  private checkForward(
    track: CaseTrack,
    event: AuditRow,
    after: Record<string, unknown>,
    problem: (f: StreamProblem["figure"], d: string) => void,
  ) {
    const moved = after.stage !== track.stage || after.state !== track.state;
    if (!moved || event.kind === "reopened") return;
    const from = `${String(track.stage)}/${String(track.state)}`;
    const to = `${String(after.stage)}/${String(after.state)}`;
    if (track.state === "resolved") problem("backwardTransitions", `a resolved case moved to ${to} in its episode`);
    const finished = track.stage === "delivery" || track.stage === "generation_failed";
    // Not steps back: returning a "no job exists" failure to reconciliation is the job's own proof that
    // it exists, and a job the provider's evidence shows is another operation's leaves this one's send
    // uncertain again (decision 038): the case never had that job to move back from.
    const notBack = event.kind === "returned_to_reconciliation" || event.kind === "provider_job_disowned";
    const back = after.stage === "submission_uncertain" || (finished && after.stage === "polling");
    if (isProviderWebhook(event) && back && !notBack) {
      problem("backwardTransitions", `a provider webhook moved the case back from ${from} to ${to}`);
    }
  }

  /** A permit is accepted at most once, then completed, or refused: never anything after its end. */
  private checkPermitStep(event: AuditRow, step: number, problem: (f: StreamProblem["figure"], d: string) => void) {
    const after = event.after ?? {};
    const key = `${String(after.producer)}\u0000${String(after.operationId)}\u0000${String(after.token)}`;
    const last = this.permits.get(key) ?? 0;
    if (step <= last || last === 2)
      problem("backwardTransitions", `a permit moved by ${event.kind} after its step ${last}`);
    this.permits.set(key, step);
  }

  private checkHolder(track: CaseTrack, event: AuditRow, problem: (f: StreamProblem["figure"], d: string) => void) {
    const evidence = event.evidence ?? {};
    if (event.kind === "claimed") {
      track.holder = String(evidence.workerId);
      return;
    }
    if (event.kind === "lease_rescued") {
      track.holder = null;
      return;
    }
    if (NOT_UNDER_CLAIM.has(event.kind)) return;
    const writer = event.actorLabel.replace(/^worker /, "");
    if (writer !== track.holder) {
      problem("concurrentExecutions", `worker ${writer} wrote while ${track.holder ?? "nobody"} held the claim`);
    }
    if (ENDS_CLAIM.has(event.kind)) track.holder = null;
  }

  private countHold(
    map: Map<string, number>,
    key: string,
    holdId: string,
    problem: (f: StreamProblem["figure"], d: string) => void,
    what: string,
  ) {
    const seen = (map.get(key) ?? 0) + 1;
    map.set(key, seen);
    if (seen > 1) problem("changesWithoutOneAudit", `hold ${holdId} ${what} ${seen} times in the log`);
  }

  holdAudits(caseId: string, holdId: string): { reserved: number; resolved: number } {
    const key = holdKey(caseId, holdId);
    return { reserved: this.holdReserves.get(key) ?? 0, resolved: this.holdResolutions.get(key) ?? 0 };
  }
}
