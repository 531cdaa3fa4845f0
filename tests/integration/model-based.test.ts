import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PrismaClient } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { permittedRecoveryAction, STAGES, type Stage } from "@/lib/domain/stages";
import { type ProviderAdapters, simulatorAdapters } from "@/lib/providers";
import type { UserActor } from "@/lib/services/access/actor";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { approveCase } from "@/lib/services/case/approve-case";
import { parkCase } from "@/lib/services/case/park-case";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import { type FinishResult, finishAction } from "@/lib/services/claim/finish-action";
import { rescueExpiredLeases } from "@/lib/services/claim/rescue-expired-leases";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import { type RunningSimulator, startSimulator } from "@/verification/simulator";
import { fingerprint, makeUser, parkInput, producer, worker } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Random command sequences against the real services and a small in-memory model of what the
// design says must happen. After every step the outcome (success or error code) must match the
// model, the database must match the model, and the money and audit invariants must hold.

const { db, url } = openTestDb();
const checker = new pg.Client({ connectionString: url });
const shop = producer("model-shop");
const FUTURE = new Date("2100-01-01T00:00:00Z");
// A provider with no jobs at all: the look before a replacement (rule 14) always finds nothing here.
let sim: RunningSimulator;
let adapters: ProviderAdapters;

type ActionStatus = "ready" | "claimed" | "succeeded" | "unresolved";
type MAction = {
  id: string;
  kind: string;
  status: ActionStatus;
  owner: string | null;
  token: number;
  expired: boolean;
  /** Rescheduled for later: ready, but not claimable yet. */
  deferred: boolean;
};
type MHold = {
  ref: string;
  amount: number;
  status: "held" | "settled" | "released";
  settled: number;
  released: number;
};
type MRequest = {
  id: string;
  requestedBy: string;
  status: "pending" | "authorized" | "expired";
  expired: boolean;
  amount: number;
  replacement?: { attemptId: string; holdId: string; holdRef: string; parked: boolean };
};
type MCase = {
  id: string;
  registration: ParkCaseInput;
  attempts: number;
  stage: Stage;
  state: "parked" | "ready" | "claimed" | "resolved";
  jobId: string | null;
  version: number;
  episode: number;
  outcome: string | null;
  currentHold: string;
  actions: MAction[];
  holds: MHold[];
  requests: MRequest[];
};
type Model = { run: number; cases: MCase[] };
type Users = { reviewer: UserActor; both: UserActor; finance1: UserActor; finance2: UserActor; operator: UserActor };
type Real = { db: PrismaClient; users: Users; workers: [string, string] };

type Outcome = { ok: true; value?: unknown } | { ok: false; code: string };
const ok = (value?: unknown): Outcome => (value === undefined ? { ok: true } : { ok: true, value });
const err = (code: string): Outcome => ({ ok: false, code });

/** Runs a service call and reduces it to success or its error code; anything without a code is a crash. */
async function attempt<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return { ok: false, code };
    throw error;
  }
}

function same(label: string, actual: Outcome, expected: Outcome) {
  const strip = (o: Outcome) => (o.ok ? { ok: true, value: o.value } : o);
  expect(strip(actual), label).toEqual(strip(expected));
}

const pick = <T>(items: readonly T[], index: number): T => {
  const item = items[index % items.length];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
};
const liveAction = (c: MCase) => c.actions.find((a) => a.status === "ready" || a.status === "claimed");
const bump = (c: MCase, changes: Partial<MCase>) => Object.assign(c, changes, { version: c.version + 1 });

function otherKind(stage: Stage) {
  return permittedRecoveryAction(stage) === "resume_poll" ? "retry_delivery" : "resume_poll";
}

async function holdRefOf(caseId: string, holdId: string) {
  return (await db.hold.findFirstOrThrow({ where: { caseId, holdId } })).id;
}

async function parkNewCase(m: Model, stage: Stage, amount: number) {
  const input = parkInput(stage);
  input.hold.amountMicros = amount;
  const result = await attempt(() => parkCase(db, shop, input));
  same(`park new ${stage}`, result.ok ? ok(result.value.created) : result, ok(true));
  if (!result.ok) return;
  const ref = await holdRefOf(result.value.caseId, input.hold.holdId);
  m.cases.push({
    id: result.value.caseId,
    registration: input,
    attempts: 1,
    stage,
    state: "parked",
    jobId: input.providerJobId ?? null,
    version: 1,
    episode: 1,
    outcome: null,
    currentHold: ref,
    actions: [],
    holds: [{ ref, amount, status: "held", settled: 0, released: 0 }],
    requests: [],
  });
}

abstract class CaseCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly casePick: number) {}
  check(m: Readonly<Model>) {
    return m.cases.length > 0;
  }
  abstract run(m: Model, r: Real): Promise<void>;
  abstract toString(): string;
  target(m: Model) {
    return pick(m.cases, this.casePick);
  }
}

class ParkNew implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly stage: Stage,
    readonly amount: number,
  ) {}
  check() {
    return true;
  }
  async run(m: Model) {
    await parkNewCase(m, this.stage, this.amount);
  }
  toString() {
    return `ParkNew(${this.stage}, ${this.amount})`;
  }
}

class ParkAgain extends CaseCommand {
  async run(m: Model) {
    const c = this.target(m);
    const result = await attempt(() => parkCase(db, shop, c.registration));
    same(this.toString(), result.ok ? ok([result.value.caseId, result.value.created]) : result, ok([c.id, false]));
  }
  toString() {
    return `ParkAgain(${this.casePick})`;
  }
}

class ParkConflicting extends CaseCommand {
  async run(m: Model) {
    const c = this.target(m);
    const input = { ...c.registration, requestFingerprint: fingerprint(`other-${c.id}-${c.version}`) };
    const result = await attempt(() => parkCase(db, shop, input));
    same(this.toString(), result.ok ? ok(result.value.created) : result, err("conflicting_registration"));
  }
  toString() {
    return `ParkConflicting(${this.casePick})`;
  }
}

class ParkNewAttempt extends CaseCommand {
  constructor(
    casePick: number,
    readonly stage: Stage,
    readonly amount: number,
  ) {
    super(casePick);
  }
  async run(m: Model) {
    const c = this.target(m);
    const n = c.attempts + 1;
    const operationId = c.registration.operationId;
    const input = parkInput(this.stage, {
      operationId,
      attemptId: `${operationId}-a${n}`,
      ...(this.stage === "polling" || this.stage === "delivery" ? { providerJobId: `job-${operationId}-${n}` } : {}),
      hold: { holdId: `hold-${operationId}-${n}`, amountMicros: this.amount, currency: "USD" },
    });
    // An authorised replacement not sent yet holds the operation's one send in flight under its
    // permit (decision 036): no other attempt takes the case until it is parked or reported.
    const replacementOut = c.requests.some((q) => q.status === "authorized" && q.replacement && !q.replacement.parked);
    const expected = c.state === "resolved" && !replacementOut ? ok(true) : err("conflicting_registration");
    const result = await attempt(() => parkCase(db, shop, input));
    same(this.toString(), result.ok ? ok(result.value.created) : result, expected);
    if (!result.ok) return;
    c.attempts = n;
    const ref = await holdRefOf(c.id, input.hold.holdId);
    c.holds.push({ ref, amount: this.amount, status: "held", settled: 0, released: 0 });
    bump(c, {
      registration: input,
      currentHold: ref,
      episode: c.episode + 1,
      stage: this.stage,
      state: "parked",
      jobId: input.providerJobId ?? null,
      outcome: null,
    });
  }
  toString() {
    return `ParkNewAttempt(${this.casePick}, ${this.stage}, ${this.amount})`;
  }
}

class ParkReplacement extends CaseCommand {
  constructor(
    casePick: number,
    readonly stage: Stage,
  ) {
    super(casePick);
  }
  override check(m: Readonly<Model>) {
    return m.cases.some((c) => c.requests.some((q) => q.replacement && !q.replacement.parked));
  }
  override target(m: Model) {
    return pick(
      m.cases.filter((c) => c.requests.some((q) => q.replacement && !q.replacement.parked)),
      this.casePick,
    );
  }
  async run(m: Model) {
    const c = this.target(m);
    const request = c.requests.find((q) => q.replacement && !q.replacement.parked);
    const replacement = request?.replacement;
    if (!replacement) throw new Error("no unparked replacement");
    const operationId = c.registration.operationId;
    const input = parkInput(this.stage, {
      operationId,
      attemptId: replacement.attemptId,
      ...(this.stage === "polling" || this.stage === "delivery"
        ? { providerJobId: `job-${replacement.attemptId}` }
        : {}),
      hold: { holdId: replacement.holdId, amountMicros: request.amount, currency: "USD" },
    });
    const expected = c.state === "resolved" ? ok(true) : err("conflicting_registration");
    const result = await attempt(() => parkCase(db, shop, input));
    same(this.toString(), result.ok ? ok(result.value.created) : result, expected);
    if (!result.ok) return;
    replacement.parked = true;
    bump(c, {
      registration: input,
      currentHold: await holdRefOf(c.id, replacement.holdId),
      episode: c.episode + 1,
      stage: this.stage,
      state: "parked",
      jobId: input.providerJobId ?? null,
      outcome: null,
    });
  }
  toString() {
    return `ParkReplacement(${this.casePick}, ${this.stage})`;
  }
}

class Reconcile extends CaseCommand {
  constructor(
    casePick: number,
    readonly verdict: "attach" | "no_job",
  ) {
    super(casePick);
  }
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const jobId = `found-${c.id.slice(0, 8)}-${c.version}`;
    const expected =
      c.state !== "parked" || c.stage !== "submission_uncertain" ? err("illegal_transition") : ok(undefined);
    const result = await attempt(() =>
      reconcileCase(
        db,
        r.users.reviewer,
        c.id,
        this.verdict === "attach"
          ? { verdict: "attach", providerJobId: jobId, evidence: "matched by time window and fingerprint" }
          : { verdict: "no_job", evidence: "no job in the provider's list" },
        { now: FUTURE },
      ),
    );
    same(this.toString(), result.ok ? ok() : result, expected);
    if (!result.ok) return;
    if (this.verdict === "attach") bump(c, { stage: "polling", jobId });
    else bump(c, { stage: "generation_failed", jobId: null });
  }
  toString() {
    return `Reconcile(${this.casePick}, ${this.verdict})`;
  }
}

/** A case a reviewer could approve right now; focused commands aim here so the claim path gets exercised. */
const approvable = (c: MCase) => c.state === "parked" && permittedRecoveryAction(c.stage) !== null;

class Approve extends CaseCommand {
  constructor(
    casePick: number,
    readonly choice: "right" | "wrong" | "bogus",
    readonly asOperator: boolean,
    readonly focused: boolean,
  ) {
    super(casePick);
  }
  override check(m: Readonly<Model>) {
    return this.focused ? m.cases.some(approvable) : m.cases.length > 0;
  }
  override target(m: Model) {
    return pick(this.focused ? m.cases.filter(approvable) : m.cases, this.casePick);
  }
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const action =
      this.choice === "bogus"
        ? "submit_again"
        : this.choice === "right"
          ? (permittedRecoveryAction(c.stage) ?? "resume_poll")
          : otherKind(c.stage);
    const live = liveAction(c);
    let expected: Outcome;
    if (this.asOperator) expected = err("forbidden");
    else if (live) expected = live.kind === action ? ok([live.id, false]) : err("conflict");
    else if (c.state !== "parked") expected = err("illegal_transition");
    else if (c.stage === "submission_uncertain") expected = err("reconciliation_required");
    else if (permittedRecoveryAction(c.stage) !== action) expected = err("action_not_permitted_for_stage");
    else expected = ok(["<new>", true]);
    const user = this.asOperator ? r.users.operator : r.users.reviewer;
    const result = await attempt(() => approveCase(db, user, c.id, { action, evidence: "checked the provider" }));
    const actual = result.ok
      ? ok([result.value.created ? "<new>" : result.value.actionId, result.value.created])
      : result;
    same(`${this} action=${action}`, actual, expected);
    if (!result.ok || !result.value.created) return;
    c.actions.push({
      id: result.value.actionId,
      kind: action,
      status: "ready",
      owner: null,
      token: 0,
      expired: false,
      deferred: false,
    });
    bump(c, { state: "ready" });
  }
  toString() {
    return `Approve(${this.casePick}, ${this.choice}${this.asOperator ? ", operator" : ""}${this.focused ? ", focused" : ""})`;
  }
}

const claimable = (c: MCase) => c.actions.some((a) => a.status === "ready" && !a.deferred);

class Claim implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly workerIndex: 0 | 1,
    readonly focused: boolean,
  ) {}
  /** A focused claim only runs when something is claimable; an unfocused one may find nothing. */
  check(m: Readonly<Model>) {
    return !this.focused || m.cases.some(claimable);
  }
  async run(m: Model, r: Real) {
    const workerId = r.workers[this.workerIndex];
    const ready = m.cases.flatMap((c) =>
      c.actions.filter((a) => a.status === "ready" && !a.deferred).map((a) => ({ a, c })),
    );
    const result = await attempt(() => claimActions(db, worker(workerId), { max: 100 }));
    if (!result.ok) throw new Error(`claim failed with ${result.code}`);
    const got = result.value.map((claim) => [claim.actionId, claim.fencingToken]).sort();
    const want = ready.map(({ a }) => [a.id, a.token + 1]).sort();
    expect(got, this.toString()).toEqual(want);
    for (const { a, c } of ready) {
      Object.assign(a, { status: "claimed", owner: workerId, token: a.token + 1, expired: false });
      bump(c, { state: "claimed" });
    }
  }
  toString() {
    return `Claim(worker ${this.workerIndex}${this.focused ? ", focused" : ""})`;
  }
}

type FinishKind =
  | "resolved"
  | "unresolved"
  | "to_delivery"
  | "to_failed"
  | "rescheduled_now"
  | "rescheduled_later"
  | "released";
type ProofKind = "right" | "wrong_token" | "other_worker";

function finishResult(kind: FinishKind): FinishResult {
  switch (kind) {
    case "resolved":
      return { kind: "resolved" };
    case "unresolved":
      return { kind: "unresolved", evidence: "provider still unreachable" };
    case "to_delivery":
      return { kind: "moved", stage: "delivery", evidence: "the job completed" };
    case "to_failed":
      return { kind: "moved", stage: "generation_failed", evidence: "the job failed" };
    case "rescheduled_now":
      return { kind: "rescheduled", evidence: "still running", nextCheckAt: new Date(Date.now() - 1_000) };
    case "rescheduled_later":
      return { kind: "rescheduled", evidence: "still running", nextCheckAt: new Date(Date.now() + 3_600_000) };
    case "released":
      return { kind: "released" };
  }
}

/** What the design says a finish by the claim holder does: [outcome, case changes, action changes]. */
function finishPlan(c: MCase, kind: FinishKind): [Outcome, Partial<MCase>?, Partial<MAction>?] {
  const ended = { owner: null };
  switch (kind) {
    case "resolved":
      return c.stage === "delivery"
        ? [ok("resolved"), { state: "resolved", outcome: "recovered" }, { ...ended, status: "succeeded" }]
        : [err("illegal_transition")];
    case "unresolved":
      return [ok("parked"), { state: "parked" }, { ...ended, status: "unresolved" }];
    case "to_delivery":
      // A completed job keeps the claim: the same worker goes on to deliver it.
      return c.stage === "polling" ? [ok("continued"), { stage: "delivery" }, {}] : [err("illegal_transition")];
    case "to_failed":
      return c.stage === "polling"
        ? [ok("parked"), { state: "parked", stage: "generation_failed" }, { ...ended, status: "unresolved" }]
        : [err("illegal_transition")];
    case "rescheduled_now":
    case "rescheduled_later":
      return c.stage === "polling" || c.stage === "delivery"
        ? [ok("rescheduled"), { state: "ready" }, { ...ended, status: "ready", deferred: kind === "rescheduled_later" }]
        : [err("action_not_permitted_for_stage")];
    case "released":
      return [ok("released"), { state: "ready" }, { ...ended, status: "ready" }];
  }
}

class Finish extends CaseCommand {
  constructor(
    casePick: number,
    readonly kind: FinishKind,
    readonly proofKind: ProofKind,
    readonly focused: boolean,
  ) {
    super(casePick);
  }
  /** Focused finishes aim at a case whose latest action is claimed right now. */
  eligible(c: MCase) {
    return this.focused ? c.actions.at(-1)?.status === "claimed" : c.actions.length > 0;
  }
  override check(m: Readonly<Model>) {
    return m.cases.some((c) => this.eligible(c));
  }
  override target(m: Model) {
    return pick(
      m.cases.filter((c) => this.eligible(c)),
      this.casePick,
    );
  }
  async run(m: Model) {
    const c = this.target(m);
    const action = c.actions[c.actions.length - 1];
    if (!action) throw new Error("no action");
    const workerId = this.proofKind === "other_worker" ? "intruder" : (action.owner ?? "nobody");
    const fencingToken = this.proofKind === "wrong_token" ? action.token + 1 : action.token;
    const holds =
      action.status === "claimed" && !action.expired && this.proofKind === "right" && action.owner === workerId;
    const [expected, caseChanges, actionChanges] = holds ? finishPlan(c, this.kind) : [ok("lost_claim")];

    const actual = await attempt(() =>
      finishAction(db, worker(workerId), { actionId: action.id, workerId, fencingToken }, finishResult(this.kind)),
    );
    same(this.toString(), actual.ok ? ok(actual.value) : actual, expected);
    if (!actual.ok || !caseChanges || !actionChanges) return;
    Object.assign(action, actionChanges);
    bump(c, caseChanges);
  }
  toString() {
    return `Finish(${this.casePick}, ${this.kind}, ${this.proofKind}${this.focused ? ", focused" : ""})`;
  }
}

class ExpireLease extends CaseCommand {
  override check(m: Readonly<Model>) {
    return m.cases.some((c) => c.actions.some((a) => a.status === "claimed"));
  }
  override target(m: Model) {
    return pick(
      m.cases.filter((c) => c.actions.some((a) => a.status === "claimed")),
      this.casePick,
    );
  }
  async run(m: Model) {
    const action = this.target(m).actions.find((a) => a.status === "claimed");
    if (!action) throw new Error("no claimed action");
    // The worker stalled: its lease runs out (only the lease column of the action is touched).
    await db.$executeRaw`UPDATE recovery_actions SET lease_until = now() - interval '1 second' WHERE id = ${action.id}::uuid`;
    action.expired = true;
  }
  toString() {
    return `ExpireLease(${this.casePick})`;
  }
}

class Rescue implements fc.AsyncCommand<Model, Real> {
  check() {
    return true;
  }
  async run(m: Model, r: Real) {
    const expired = m.cases.flatMap((c) =>
      c.actions.filter((a) => a.status === "claimed" && a.expired).map((a) => ({ a, c })),
    );
    const rescued = await rescueExpiredLeases(db, worker(`${r.workers[0]}-rescuer`));
    expect(rescued, this.toString()).toBe(expired.length);
    for (const { a, c } of expired) {
      Object.assign(a, { status: "ready", owner: null, expired: false });
      bump(c, { state: "ready" });
    }
  }
  toString() {
    return "Rescue()";
  }
}

class ResolveHold extends CaseCommand {
  constructor(
    casePick: number,
    readonly holdPick: number,
    readonly decision: "partial" | "full" | "overage" | "release",
    readonly asReviewer: boolean,
  ) {
    super(casePick);
  }
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const hold = pick(c.holds, this.holdPick);
    const charge =
      this.decision === "partial"
        ? Math.max(1, Math.floor(hold.amount / 3))
        : this.decision === "full"
          ? hold.amount
          : hold.amount + 12_345;
    // DESIGN rule 18: the current attempt's job may still complete while its case is uncertain or
    // polling, and an authorised replacement may be sent at any moment under its live permit until
    // the producer parks (or reports) it.
    const sendInFlight = c.requests.some((q) => q.replacement?.holdRef === hold.ref && !q.replacement.parked);
    const outcomeUnknown =
      sendInFlight ||
      (hold.ref === c.currentHold && c.state !== "resolved" && ["submission_uncertain", "polling"].includes(c.stage));
    // ... and once the case of the current attempt reached delivery, the job is known completed: settled only.
    const completed = hold.ref === c.currentHold && c.stage === "delivery";
    const expected = this.asReviewer
      ? err("forbidden")
      : hold.status !== "held"
        ? err("hold_already_resolved")
        : this.decision === "release" && completed
          ? err("send_completed")
          : this.decision === "release" && outcomeUnknown
            ? err("send_outcome_unknown")
            : ok(this.decision === "release" ? "released" : "settled");
    const user = this.asReviewer ? r.users.reviewer : r.users.finance1;
    const result = await attempt(() =>
      resolveHold(
        db,
        user,
        hold.ref,
        this.decision === "release"
          ? { kind: "release", note: "no charge", evidence: "usage export" }
          : { kind: "settle", chargeMicros: charge, note: "invoice", evidence: "usage export" },
      ),
    );
    same(this.toString(), result.ok ? ok(result.value.status) : result, expected);
    if (!result.ok) return;
    if (this.decision === "release") Object.assign(hold, { status: "released", released: hold.amount });
    else {
      const settled = Math.min(charge, hold.amount);
      Object.assign(hold, { status: "settled", settled, released: hold.amount - settled });
    }
  }
  toString() {
    return `ResolveHold(${this.casePick}, hold ${this.holdPick}, ${this.decision}${this.asReviewer ? ", reviewer" : ""})`;
  }
}

class AcceptFailure extends CaseCommand {
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const expected =
      c.state !== "parked"
        ? err("illegal_transition")
        : c.stage === "submission_uncertain"
          ? err("reconciliation_required")
          : c.stage !== "generation_failed"
            ? err("action_not_permitted_for_stage")
            : ok();
    const result = await attempt(() => acceptFailure(db, r.users.reviewer, c.id, { evidence: "provider failed it" }));
    same(this.toString(), result.ok ? ok() : result, expected);
    if (result.ok) bump(c, { state: "resolved", outcome: "failure_accepted" });
  }
  toString() {
    return `AcceptFailure(${this.casePick})`;
  }
}

class RequestReplacement extends CaseCommand {
  constructor(
    casePick: number,
    readonly byBoth: boolean,
  ) {
    super(casePick);
  }
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const user = this.byBoth ? r.users.both : r.users.reviewer;
    const expected =
      c.state !== "parked"
        ? err("illegal_transition")
        : c.stage !== "generation_failed"
          ? err("replacement_not_allowed")
          : c.requests.some((q) => q.status === "pending" && !q.expired)
            ? err("conflict")
            : ok();
    const result = await attempt(() => requestReplacement(db, user, c.id, { evidence: "needs a new generation" }));
    same(this.toString(), result.ok ? ok() : result, expected);
    if (!result.ok) return;
    // An expired request no longer blocks a new one: it is closed as expired.
    for (const q of c.requests) if (q.status === "pending" && q.expired) q.status = "expired";
    const amount = c.holds.find((h) => h.ref === c.currentHold)?.amount ?? -1;
    expect(result.value.amountMicros, "replacement cost defaults to the current attempt's hold").toBe(amount);
    c.requests.push({
      id: result.value.requestId,
      requestedBy: user.userId,
      status: "pending",
      expired: false,
      amount,
    });
  }
  toString() {
    return `RequestReplacement(${this.casePick}${this.byBoth ? ", reviewer+finance" : ""})`;
  }
}

type Authoriser = "both" | "finance1" | "finance2" | "reviewer";

class AuthorizeReplacement extends CaseCommand {
  constructor(
    casePick: number,
    readonly by: Authoriser,
  ) {
    super(casePick);
  }
  override check(m: Readonly<Model>) {
    return m.cases.some((c) => c.requests.length > 0);
  }
  override target(m: Model) {
    return pick(
      m.cases.filter((c) => c.requests.length > 0),
      this.casePick,
    );
  }
  async run(m: Model, r: Real) {
    const c = this.target(m);
    const request = c.requests[c.requests.length - 1];
    if (!request) throw new Error("no request");
    const user = r.users[this.by];
    const expected =
      this.by === "reviewer"
        ? err("forbidden")
        : user.userId === request.requestedBy
          ? err("four_eyes_violation")
          : request.status !== "pending"
            ? err("illegal_transition")
            : request.expired
              ? err("replacement_expired")
              : c.state !== "parked"
                ? err("illegal_transition")
                : c.stage !== "generation_failed"
                  ? err("replacement_not_allowed")
                  : ok();
    const result = await attempt(() =>
      authorizeReplacement(db, user, request.id, { evidence: "budget approved" }, { adapters }),
    );
    same(this.toString(), result.ok ? ok() : result, expected);
    if (!result.ok) return;
    request.status = "authorized";
    const ref = await holdRefOf(c.id, result.value.holdId);
    request.replacement = {
      attemptId: result.value.attemptId,
      holdId: result.value.holdId,
      holdRef: ref,
      parked: false,
    };
    c.holds.push({ ref, amount: request.amount, status: "held", settled: 0, released: 0 });
    bump(c, { state: "resolved", outcome: "replacement_authorized" });
  }
  toString() {
    return `AuthorizeReplacement(${this.casePick}, ${this.by})`;
  }
}

class ExpireRequest extends CaseCommand {
  override check(m: Readonly<Model>) {
    return m.cases.some((c) => c.requests.some((q) => q.status === "pending"));
  }
  override target(m: Model) {
    return pick(
      m.cases.filter((c) => c.requests.some((q) => q.status === "pending")),
      this.casePick,
    );
  }
  async run(m: Model) {
    const request = this.target(m).requests.find((q) => q.status === "pending");
    if (!request) throw new Error("no pending request");
    await db.$executeRaw`UPDATE replacement_requests SET expires_at = now() - interval '1 second' WHERE id = ${request.id}::uuid`;
    request.expired = true;
  }
  toString() {
    return `ExpireRequest(${this.casePick})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Invariants, read from the database in one round trip for the run's cases.

const INVARIANTS_SQL = `
WITH c AS (SELECT * FROM cases WHERE id = ANY($1::uuid[])),
a AS (SELECT * FROM recovery_actions WHERE case_id = ANY($1::uuid[])),
h AS (SELECT * FROM holds WHERE case_id = ANY($1::uuid[])),
l AS (SELECT l.* FROM ledger_entries l JOIN h ON h.id = l.hold_ref),
e AS (SELECT * FROM audit_events WHERE case_id = ANY($1::uuid[])
        AND before->'version' IS NOT NULL AND (after->'version') IS DISTINCT FROM (before->'version'))
SELECT json_build_object(
  'cases', (SELECT coalesce(json_agg(json_build_object('id', id, 'stage', stage, 'state', state, 'version', version,
             'episode', episode, 'jobId', provider_job_id, 'outcome', outcome)), '[]') FROM c),
  'actions', (SELECT coalesce(json_agg(json_build_object('id', id, 'status', status, 'owner', lease_owner,
             'token', fencing_token)), '[]') FROM a),
  'holds', (SELECT coalesce(json_agg(json_build_object('id', id, 'status', status, 'settled', settled_micros,
             'released', released_micros)), '[]') FROM h),
  'requests', (SELECT coalesce(json_agg(json_build_object('id', id, 'status', status)), '[]')
             FROM replacement_requests WHERE case_id = ANY($1::uuid[])),
  'violations', (SELECT coalesce(json_agg(v), '[]') FROM (
    SELECT 'action without its approving decision: ' || a.id AS v FROM a
      LEFT JOIN decisions d ON d.id = a.decision_id AND d.case_id = a.case_id AND d.kind = 'approve'
                           AND d.action_kind = a.kind
      WHERE d.id IS NULL
    UNION ALL
    SELECT 'more than one live action: ' || case_id FROM a WHERE status IN ('ready', 'claimed')
      GROUP BY case_id HAVING count(*) > 1
    UNION ALL
    SELECT 'case state disagrees with its live action: ' || c.id FROM c
      WHERE (SELECT count(*) FROM a WHERE a.case_id = c.id AND a.status IN ('ready', 'claimed'))
            <> CASE WHEN c.state IN ('ready', 'claimed') THEN 1 ELSE 0 END
         OR (c.state IN ('ready', 'claimed')
             AND NOT EXISTS (SELECT 1 FROM a WHERE a.case_id = c.id AND a.status::text = c.state::text))
    UNION ALL
    SELECT 'held_micros is not the sum of held holds: ' || c.id FROM c
      WHERE c.held_micros < 0
         OR c.held_micros <> (SELECT coalesce(sum(amount_micros), 0) FROM h WHERE h.case_id = c.id AND h.status = 'held')
    UNION ALL
    SELECT 'negative money on hold: ' || h.id FROM h
      WHERE amount_micros <= 0 OR settled_micros < 0 OR released_micros < 0
    UNION ALL
    SELECT 'a held hold moved money: ' || h.id FROM h
      WHERE status = 'held' AND (settled_micros <> 0 OR released_micros <> 0 OR resolved_at IS NOT NULL
            OR EXISTS (SELECT 1 FROM l WHERE l.hold_ref = h.id AND l.kind <> 'reserve'))
    UNION ALL
    SELECT 'resolved hold does not balance: ' || h.id FROM h
      WHERE status <> 'held' AND (
        settled_micros + released_micros <> amount_micros
        OR settled_micros <> (SELECT coalesce(sum(amount_micros), 0) FROM l WHERE l.hold_ref = h.id AND l.kind = 'settle')
        OR released_micros <> (SELECT coalesce(sum(amount_micros), 0) FROM l WHERE l.hold_ref = h.id AND l.kind = 'release')
        OR (status = 'released' AND settled_micros <> 0))
    UNION ALL
    SELECT 'ledger kind repeated on one hold: ' || hold_ref || ' ' || kind FROM l GROUP BY hold_ref, kind
      HAVING count(*) > 1
    UNION ALL
    SELECT 'hold without exactly one matching reserve: ' || h.id FROM h
      WHERE (SELECT count(*) FROM l WHERE l.hold_ref = h.id AND l.kind = 'reserve' AND l.amount_micros = h.amount_micros) <> 1
    UNION ALL
    SELECT 'overage not flagged or not on a settled hold: ' || l.id FROM l JOIN h ON h.id = l.hold_ref
      WHERE (l.kind = 'overage') <> l.flagged OR (l.kind = 'overage' AND h.status <> 'settled')
    UNION ALL
    SELECT 'state changes and audit events disagree: ' || c.id || ' version ' || c.version FROM c
      WHERE (SELECT count(*) FROM e WHERE e.case_id = c.id) <> c.version - 1
         OR (SELECT count(DISTINCT (e.after->>'version')::int) FROM e WHERE e.case_id = c.id) <> c.version - 1
         OR (SELECT coalesce(max((e.after->>'version')::int), 1) FROM e WHERE e.case_id = c.id) <> c.version
         OR EXISTS (SELECT 1 FROM e WHERE e.case_id = c.id
                    AND (e.after->>'version')::int <> (e.before->>'version')::int + 1)
  ) violations)
) AS report`;

type Report = {
  cases: {
    id: string;
    stage: string;
    state: string;
    version: number;
    episode: number;
    jobId: string | null;
    outcome: string | null;
  }[];
  actions: { id: string; status: string; owner: string | null; token: number }[];
  holds: { id: string; status: string; settled: number; released: number }[];
  requests: { id: string; status: string }[];
  violations: string[];
};

async function checkInvariants(m: Model, after: string) {
  const { rows } = await checker.query<{ report: Report }>(INVARIANTS_SQL, [m.cases.map((c) => c.id)]);
  const report = rows[0]?.report;
  if (!report) throw new Error("no invariant report");
  expect(report.violations, `invariants after ${after}`).toEqual([]);
  const byId = <T extends { id: string }>(items: T[]) => [...items].sort((x, y) => x.id.localeCompare(y.id));
  expect(byId(report.cases), `cases after ${after}`).toEqual(
    byId(
      m.cases.map((c) => ({
        id: c.id,
        stage: c.stage,
        state: c.state,
        version: c.version,
        episode: c.episode,
        jobId: c.jobId,
        outcome: c.outcome,
      })),
    ),
  );
  expect(byId(report.actions), `actions after ${after}`).toEqual(
    byId(
      m.cases.flatMap((c) => c.actions.map((a) => ({ id: a.id, status: a.status, owner: a.owner, token: a.token }))),
    ),
  );
  expect(byId(report.holds), `holds after ${after}`).toEqual(
    byId(
      m.cases.flatMap((c) =>
        c.holds.map((h) => ({ id: h.ref, status: h.status, settled: h.settled, released: h.released })),
      ),
    ),
  );
  expect(byId(report.requests), `replacement requests after ${after}`).toEqual(
    byId(m.cases.flatMap((c) => c.requests.map((q) => ({ id: q.id, status: q.status })))),
  );
}

/** Every command is followed by the invariant check, so a violation names the step that caused it. */
function checked(command: fc.AsyncCommand<Model, Real>): fc.AsyncCommand<Model, Real> {
  return {
    check: (m) => command.check(m),
    run: async (m, r) => {
      await command.run(m, r);
      await checkInvariants(m, command.toString());
    },
    toString: () => command.toString(),
  };
}

// ---------------------------------------------------------------------------------------------

const stage = fc.constantFrom(...STAGES);
// Initial cases lean towards the stages that have a recovery path, so claims and finishes happen.
const initialStage = fc.constantFrom<Stage>("polling", "delivery", "generation_failed", ...STAGES);
const amount = fc.integer({ min: 1, max: 5_000_000 });
const index = fc.nat({ max: 50 });
const approve = (focused: boolean) =>
  fc
    .tuple(index, fc.constantFrom("right" as const, "right" as const, "wrong" as const, "bogus" as const), fc.boolean())
    .map(([i, choice, operator]) => new Approve(i, choice, operator && choice === "bogus", focused));
const finish = (focused: boolean) =>
  fc
    .tuple(
      index,
      fc.constantFrom<FinishKind>(
        "resolved",
        "resolved",
        "unresolved",
        "to_delivery",
        "to_delivery",
        "to_failed",
        "rescheduled_now",
        "rescheduled_later",
        "released",
      ),
      fc.constantFrom<ProofKind>("right", "right", "right", "wrong_token", "other_worker"),
    )
    .map(([i, k, p]) => new Finish(i, k, p, focused));
const claim = (focused: boolean) => fc.constantFrom(0 as const, 1 as const).map((w) => new Claim(w, focused));
const authorize = fc
  .tuple(index, fc.constantFrom<Authoriser>("both", "finance1", "finance2", "finance2", "reviewer"))
  .map(([i, by]) => new AuthorizeReplacement(i, by));
type HoldChoice = "partial" | "full" | "overage" | "release";
// Repeating an arbitrary in this list makes its command proportionally more frequent.
const commandArbs = [
  fc.tuple(stage, amount).map(([s, a]) => new ParkNew(s, a)),
  index.map((i) => new ParkAgain(i)),
  index.map((i) => new ParkConflicting(i)),
  fc.tuple(index, stage, amount).map(([i, s, a]) => new ParkNewAttempt(i, s, a)),
  fc.tuple(index, stage).map(([i, s]) => new ParkReplacement(i, s)),
  fc.tuple(index, stage).map(([i, s]) => new ParkReplacement(i, s)),
  fc.tuple(index, fc.constantFrom("attach" as const, "no_job" as const)).map(([i, v]) => new Reconcile(i, v)),
  approve(false),
  approve(true),
  approve(true),
  claim(false),
  claim(true),
  claim(true),
  finish(false),
  finish(true),
  finish(true),
  finish(true),
  index.map((i) => new ExpireLease(i)),
  fc.constant(null).map(() => new Rescue()),
  fc
    .tuple(
      index,
      fc.nat({ max: 5 }),
      fc.constantFrom<HoldChoice>("partial", "full", "overage", "release"),
      fc.boolean(),
    )
    .map(([i, h, d, reviewer]) => new ResolveHold(i, h, d, reviewer && h === 0)),
  index.map((i) => new AcceptFailure(i)),
  fc.tuple(index, fc.boolean()).map(([i, both]) => new RequestReplacement(i, both)),
  fc.tuple(index, fc.boolean()).map(([i, both]) => new RequestReplacement(i, both)),
  authorize,
  authorize,
  authorize,
  index.map((i) => new ExpireRequest(i)),
].map((arb) => arb.map(checked));

let users: Users;
let runs = 0;

beforeAll(async () => {
  await checker.connect();
  sim = await startSimulator({ port: 0 });
  adapters = simulatorAdapters(sim.url, { retry: { maxAttempts: 1, perAttemptTimeoutMs: 2_000 } });
  users = {
    reviewer: await makeUser(db, ["reviewer"]),
    both: await makeUser(db, ["reviewer", "finance"]),
    finance1: await makeUser(db, ["finance"]),
    finance2: await makeUser(db, ["finance"]),
    operator: await makeUser(db, ["operator"]),
  };
});
afterAll(async () => {
  await sim.stop();
  await checker.end();
});

/**
 * Actions left ready or claimed by a finished run would be picked up (or rescued) by later runs;
 * their leases are cut short and the real services hand them all to a drain worker with a long
 * lease, so each run starts clean.
 */
async function drain(m: Model) {
  const janitor: Principal = worker("drain");
  const ids = m.cases.map((c) => c.id);
  await db.$executeRaw`UPDATE recovery_actions SET lease_until = now() - interval '1 second'
    WHERE status = 'claimed' AND case_id = ANY(${ids}::uuid[])`;
  await rescueExpiredLeases(db, janitor);
  await claimActions(db, janitor, { max: 1000, leaseSeconds: 3600 });
}

describe("model-based: random command sequences against the real services", () => {
  it("outcomes, rows and money/audit invariants match the model after every step", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(initialStage, amount), { minLength: 2, maxLength: 4 }),
        fc.commands(commandArbs, { maxCommands: 50, size: "max" }),
        async (initial, commands) => {
          runs += 1;
          const model: Model = { run: runs, cases: [] };
          try {
            await fc.asyncModelRun(async () => {
              for (const [s, a] of initial) await parkNewCase(model, s, a);
              await checkInvariants(model, "initial parks");
              return { model, real: { db, users, workers: [`w1-run${runs}`, `w2-run${runs}`] } };
            }, commands);
          } finally {
            await drain(model);
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 180_000);
});
