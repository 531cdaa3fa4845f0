import { fail, ok, type Result } from "./errors";
import type { CaseState, Stage } from "./stages";

/**
 * Send permits (DESIGN 6a): the write-ahead marker a producer asks for before it calls a provider's
 * create. At most one permit of an operation is open at a time; once one was used, asking again
 * says where the operation stands, never issues a second permit for the same send.
 */
export const PERMIT_STATUSES = [
  "live",
  "accepted",
  "rejected",
  "uncertain",
  "completed",
  "failed",
  "withdrawn",
] as const;
export type PermitStatus = (typeof PERMIT_STATUSES)[number];

export const PERMIT_OUTCOMES = ["accepted", "rejected", "unknown", "completed", "failed"] as const;
export type PermitOutcome = (typeof PERMIT_OUTCOMES)[number];

/** How long a producer may take between receiving a permit and reporting its send. */
export const MAX_SEND_WINDOW_SECONDS = 24 * 60 * 60;

/** A replacement's permit is issued when finance authorises it: the producer has the longest window to send it. */
export const REPLACEMENT_SEND_WINDOW_SECONDS = MAX_SEND_WINDOW_SECONDS;

/** What a producer states when it asks for a permit; a repeat must agree on every one of them. */
export interface PermitFacts {
  attemptId: string;
  fingerprint: string;
  provider: string;
  model: string;
  holdId: string;
  amountMicros: bigint;
  currency: string;
}

/** The operation's latest permit as stored. */
export interface StoredPermit extends PermitFacts {
  status: PermitStatus;
  token: number;
  providerJobId: string | null;
  caseId: string | null;
  /** The state of the case the permit parked as, if it did. */
  caseState: CaseState | null;
}

/** The operation as registered, when it exists: its facts and a case parked without any permit. */
export interface OperationSeen {
  fingerprint: string;
  provider: string;
  model: string;
  latest: StoredPermit | null;
  caseWithoutPermit: { caseId: string; state: CaseState } | null;
  /** Set when the requested attempt is one an authorised replacement replaced: its generation ended. */
  replaced?: { caseId: string | null } | null;
}

export type PermitAnswer =
  /** A new permit: the attempt may be sent once, reported under this token. */
  | { kind: "issue"; token: number }
  /** The identical request again: the same live permit. */
  | { kind: "same"; token: number }
  /** The permit was used and the provider took the job: never send again. */
  | { kind: "in_flight"; providerJobId: string }
  /** The send's outcome is unknown: a case holds it for people to reconcile. */
  | { kind: "uncertain"; caseId: string | null }
  /** The operation's generation has ended (completed, failed, or a case resolved it). */
  | { kind: "done"; caseId: string | null };

const FACT_NAMES: Record<keyof PermitFacts, string> = {
  attemptId: "attemptId",
  fingerprint: "requestFingerprint",
  provider: "provider",
  model: "model",
  holdId: "hold.holdId",
  amountMicros: "hold.amountMicros",
  currency: "hold.currency",
};

function differing(a: PermitFacts, b: PermitFacts): string[] {
  return (Object.keys(FACT_NAMES) as (keyof PermitFacts)[]).filter((k) => a[k] !== b[k]).map((k) => FACT_NAMES[k]);
}

/**
 * Validates the send deadline against the database's clock: in the future, within a day. Only a new
 * permit needs a deadline still ahead; a request repeated after its permit's deadline is answered
 * with where that permit stands, so a caller may check `withinWindow` alone first.
 */
export function checkSendDeadline(deadline: Date, now: Date): Result<Date> {
  const window = withinWindow(deadline, now);
  if (!window.ok) return window;
  if (deadline.getTime() <= now.getTime()) return fail("invalid_input", "sendDeadline must be in the future");
  return ok(deadline);
}

/** The part of the deadline's check that holds for any request: at most a day ahead. */
export function withinWindow(deadline: Date, now: Date): Result<Date> {
  const seconds = (deadline.getTime() - now.getTime()) / 1000;
  if (seconds > MAX_SEND_WINDOW_SECONDS) return fail("invalid_input", "sendDeadline may be at most 24 hours ahead");
  return ok(deadline);
}

/** DESIGN 6a: what asking for a permit gets, given the operation as it stands. */
export function decidePermitRequest(operation: OperationSeen | null, facts: PermitFacts): Result<PermitAnswer> {
  if (!operation) return ok({ kind: "issue", token: 1 });
  const operationDiffers = (["fingerprint", "provider", "model"] as const).filter((k) => operation[k] !== facts[k]);
  if (operationDiffers.length > 0) {
    const names = operationDiffers.map((k) => FACT_NAMES[k]);
    return fail(
      "conflicting_registration",
      `The operation was registered with other facts; differing: ${names.join(", ")}`,
      {
        differing: names,
      },
    );
  }
  // A producer restarting on an attempt finance replaced is told it is done, whatever the replacement's permit says.
  if (operation.replaced) return ok({ kind: "done", caseId: operation.replaced.caseId });
  if (operation.caseWithoutPermit) {
    const { caseId, state } = operation.caseWithoutPermit;
    return ok(state === "resolved" ? { kind: "done", caseId } : { kind: "uncertain", caseId });
  }
  const latest = operation.latest;
  if (!latest) return ok({ kind: "issue", token: 1 });
  if (latest.caseState === "resolved") return ok({ kind: "done", caseId: latest.caseId });
  switch (latest.status) {
    case "live": {
      if (latest.attemptId !== facts.attemptId) {
        return fail("conflicting_registration", `Attempt "${latest.attemptId}" holds this operation's live permit.`, {
          differing: ["attemptId"],
        });
      }
      const names = differing(latest, facts);
      if (names.length > 0) {
        return fail(
          "conflicting_registration",
          `This permit was issued for other facts; differing: ${names.join(", ")}`,
          {
            differing: names,
          },
        );
      }
      return ok({ kind: "same", token: latest.token });
    }
    case "accepted":
      return ok({ kind: "in_flight", providerJobId: latest.providerJobId ?? "" });
    case "uncertain":
      return ok({ kind: "uncertain", caseId: latest.caseId });
    case "completed":
    case "failed":
      return ok({ kind: "done", caseId: latest.caseId });
    // A replacement called back before it was sent: its permit is void and nothing may be sent for it.
    case "withdrawn":
      return ok({ kind: "done", caseId: latest.caseId });
    case "rejected":
      // The provider said no to that attempt, so nothing was bought: a new attempt may be sent.
      if (latest.attemptId === facts.attemptId) {
        return fail("conflicting_registration", "The provider rejected this attempt; ask again with a new attemptId.", {
          differing: ["attemptId"],
        });
      }
      return ok({ kind: "issue", token: latest.token + 1 });
  }
}

/** What a producer reports about a permit's send. */
export type OutcomeReport =
  | { kind: "accepted"; providerJobId: string }
  | { kind: "rejected" }
  | { kind: "unknown" }
  | { kind: "completed"; providerJobId: string | null }
  | { kind: "failed"; providerJobId: string | null };

export type OutcomeEffect =
  /** The provider took the job: the permit is in flight with it. */
  | { kind: "record_job"; next: "accepted"; providerJobId: string }
  /** The provider definitely refused: nothing was bought; the hold waits for finance to release it. */
  | { kind: "close_rejected"; next: "rejected" }
  /** The job completed as the producer polled it: the hold is settled for the job. */
  | { kind: "settle"; next: "completed"; providerJobId: string }
  /** The product must decide from here: a case is parked in `stage`. */
  | { kind: "park"; next: "uncertain" | "failed" | "accepted"; stage: Stage; providerJobId: string | null }
  /** A job reported after the permit was parked as uncertain: it is attached to that case. */
  | { kind: "attach"; providerJobId: string }
  /** The same report again: nothing changes. */
  | { kind: "repeat" };

function jobOf(report: OutcomeReport): string | null {
  return "providerJobId" in report ? report.providerJobId : null;
}

/**
 * DESIGN 6a: what a reported outcome does to a permit. A report under another token than the
 * permit's, or on a permit a later one superseded, is refused (it cannot speak for the operation); nothing moves
 * backwards (a job the provider accepted is never "rejected" afterwards), and a report that
 * names a different job than the one recorded is refused.
 */
export function decideOutcome(
  permit: {
    status: PermitStatus;
    token: number;
    providerJobId: string | null;
    latestToken: number;
    /** The case the send parked as, if it did. */
    caseRef: string | null;
  },
  token: number,
  report: OutcomeReport,
): Result<OutcomeEffect> {
  if (token !== permit.token || permit.token !== permit.latestToken) {
    return fail("stale_fencing_token", "This permit token is not the operation's current permit.");
  }
  const job = jobOf(report);
  const known = permit.providerJobId;
  if (known !== null && job !== null && job !== known) {
    return fail("conflicting_registration", "The permit's send is recorded with another provider job.", {
      differing: ["providerJobId"],
    });
  }
  const illegal = () =>
    fail("illegal_transition", `A permit that is ${permit.status} cannot be reported ${report.kind}.`, {
      status: permit.status,
    });
  switch (permit.status) {
    case "live":
      switch (report.kind) {
        case "accepted":
          return ok({ kind: "record_job", next: "accepted", providerJobId: report.providerJobId });
        case "rejected":
          return ok({ kind: "close_rejected", next: "rejected" });
        case "unknown":
          return ok({ kind: "park", next: "uncertain", stage: "submission_uncertain", providerJobId: null });
        case "completed":
        case "failed":
          if (job === null) return fail("provider_job_id_required", `A ${report.kind} report names the provider job.`);
          return ok(
            report.kind === "completed"
              ? { kind: "settle", next: "completed", providerJobId: job }
              : { kind: "park", next: "failed", stage: "generation_failed", providerJobId: job },
          );
      }
      break;
    case "accepted": {
      // Parked as a job to check (the producer lost track of it): its case decides from here, on
      // the provider's word through its status checks, so no report moves the send again.
      if (permit.caseRef !== null) return report.kind === "rejected" ? illegal() : ok({ kind: "repeat" });
      const acceptedJob = known ?? "";
      switch (report.kind) {
        case "accepted":
          return ok({ kind: "repeat" });
        case "completed":
          return ok({ kind: "settle", next: "completed", providerJobId: acceptedJob });
        case "failed":
          return ok({ kind: "park", next: "failed", stage: "generation_failed", providerJobId: acceptedJob });
        case "unknown":
          // The producer lost track of a job it knows: status checks resume after a reviewer's approval.
          return ok({ kind: "park", next: "accepted", stage: "polling", providerJobId: acceptedJob });
        case "rejected":
          return illegal();
      }
      break;
    }
    case "uncertain":
      if (report.kind === "unknown") return ok({ kind: "repeat" });
      if (job !== null && known === null) return ok({ kind: "attach", providerJobId: job });
      if (job !== null && job === known) return ok({ kind: "repeat" });
      return illegal();
    case "rejected":
      return report.kind === "rejected" ? ok({ kind: "repeat" }) : illegal();
    // An outcome already known (the provider's own webhook may have told it first): the same
    // report, a producer that lost track of its answer, or its late "accepted" add nothing.
    case "completed":
      return ["completed", "unknown", "accepted"].includes(report.kind) ? ok({ kind: "repeat" }) : illegal();
    case "failed":
      return ["failed", "unknown", "accepted"].includes(report.kind) ? ok({ kind: "repeat" }) : illegal();
    // Refused before this is asked (report-outcome.ts names the withdrawal); nothing is taken on it.
    case "withdrawn":
      return illegal();
  }
  return illegal();
}
