import type { FaultRuleInput } from "@/verification/simulator";
import { count, type OpRecord, type World } from "./world";

/** What happens around one provider call a worker makes for an operation. */
export type CallPlan = {
  /** The worker process dies before the call leaves, or after the answer arrived (before any write). */
  crash?: "before" | "after";
  /** The call stalls past the lease; another worker takes the action over meanwhile. */
  interleave?: "before" | "after";
  /** Simulator fault rules for this call only (matched by job ID). */
  rules: FaultRuleInput[];
  /** A lagging replica answers this read: the job looks queued again, or unknown. */
  stale?: "running" | "not_found";
  label: string;
};

const MAX_CRASHES = 2;
const MAX_INTERLEAVES = 1;
const MAX_PROVIDER_FAULTS = 3;

function lifecycleFaults(op: OpRecord, nested: boolean, crashOdds: number, interleaveOdds: number) {
  const rng = op.plan.rng;
  const plan: Pick<CallPlan, "crash" | "interleave"> = {};
  if (op.budget.crashes < MAX_CRASHES && rng.chance(crashOdds)) {
    op.budget.crashes += 1;
    plan.crash = rng.chance(0.5) ? "before" : "after";
  } else if (!nested && op.budget.interleaves < MAX_INTERLEAVES && rng.chance(interleaveOdds)) {
    op.budget.interleaves += 1;
    plan.interleave = rng.chance(0.5) ? "before" : "after";
  }
  return plan;
}

export function planStatusCall(world: World, op: OpRecord, jobId: string, nested: boolean): CallPlan {
  const rng = op.plan.rng;
  const plan: CallPlan = { ...lifecycleFaults(op, nested, 0.06, 0.05), rules: [], label: "clean" };
  if (op.budget.providerFaults < MAX_PROVIDER_FAULTS && rng.chance(0.15)) {
    op.budget.providerFaults += 1;
    const status = { jobId, route: "status" as const };
    const kind = rng.weighted([
      ["http500_once", 22],
      ["http500_twice", 18],
      ["reset_twice", 10],
      ["rate_limited", 25],
      ["stale_running", 10],
      ["stale_not_found", 8],
      ["result_500", op.plan.model.provider === "fal" ? 7 : 0],
    ] as const);
    plan.label = kind;
    if (kind === "http500_once")
      plan.rules.push({ match: status, fault: { type: "http_error", status: 500 }, times: 1 });
    if (kind === "http500_twice")
      plan.rules.push({ match: status, fault: { type: "http_error", status: 500 }, times: 2 });
    if (kind === "reset_twice") plan.rules.push({ match: status, fault: { type: "reset" }, times: 2 });
    if (kind === "rate_limited") {
      const retryAfterSeconds = rng.pick([10, 30, 60, 120]);
      plan.rules.push({ match: status, fault: { type: "rate_limit", retryAfterSeconds }, times: 1 });
    }
    if (kind === "result_500") {
      plan.rules.push({ match: { jobId, route: "result" }, fault: { type: "http_error", status: 500 }, times: 2 });
    }
    if (kind === "stale_running") plan.stale = "running";
    if (kind === "stale_not_found") plan.stale = "not_found";
  }
  note(world, "status", plan);
  return plan;
}

export function planDownload(world: World, op: OpRecord, jobId: string, nested: boolean): CallPlan {
  const rng = op.plan.rng;
  const plan: CallPlan = { ...lifecycleFaults(op, nested, 0.05, 0.03), rules: [], label: "clean" };
  if (op.budget.providerFaults < MAX_PROVIDER_FAULTS && rng.chance(0.18)) {
    op.budget.providerFaults += 1;
    const download = { jobId, route: "download" as const };
    const kind = rng.weighted([
      ["corrupt", 40],
      ["truncate", 35],
      ["http503", 25],
    ] as const);
    plan.label = kind;
    if (kind === "corrupt") plan.rules.push({ match: download, fault: { type: "corrupt" }, times: 1 });
    if (kind === "truncate") plan.rules.push({ match: download, fault: { type: "truncate" }, times: 1 });
    if (kind === "http503") plan.rules.push({ match: download, fault: { type: "http_error", status: 503 }, times: 1 });
  }
  note(world, "download", plan);
  return plan;
}

export type StoragePlan = { diskFull: boolean; crashAfterCommit: boolean };

export function planStorage(world: World, op: OpRecord): StoragePlan {
  const rng = op.plan.rng;
  const plan = { diskFull: false, crashAfterCommit: false };
  if (op.budget.providerFaults < MAX_PROVIDER_FAULTS && rng.chance(0.02)) {
    op.budget.providerFaults += 1;
    plan.diskFull = true;
  } else if (op.budget.crashes < MAX_CRASHES && rng.chance(0.04)) {
    op.budget.crashes += 1;
    plan.crashAfterCommit = true;
  }
  if (plan.diskFull) count(world, "fault storage: disk full");
  if (plan.crashAfterCommit) count(world, "fault storage: crash after the copy was stored, before publishing");
  return plan;
}

export type WebhookPlan = { crash?: "before" | "after"; transportError: boolean; status: number };

/** The producer's endpoint and the path to it, as the worker delivers the delivery notification. */
export function planWebhook(world: World, op: OpRecord | null): WebhookPlan {
  const plan: WebhookPlan = { transportError: false, status: 200 };
  if (!op) return plan;
  const rng = op.plan.rng;
  if (op.budget.crashes < MAX_CRASHES && rng.chance(0.05)) {
    op.budget.crashes += 1;
    plan.crash = rng.chance(0.4) ? "before" : "after";
    count(world, `fault webhook: worker crash ${plan.crash} sending`);
  } else if (op.budget.providerFaults < MAX_PROVIDER_FAULTS + 1 && rng.chance(0.16)) {
    op.budget.providerFaults += 1;
    if (rng.chance(0.4)) plan.transportError = true;
    else plan.status = rng.pick([500, 502, 503]);
    count(world, plan.transportError ? "fault webhook: connection failed" : "fault webhook: producer answered 5xx");
  }
  return plan;
}

function note(world: World, call: string, plan: CallPlan): void {
  if (plan.crash) count(world, `fault ${call}: worker crash ${plan.crash} the call`);
  if (plan.interleave)
    count(world, `fault ${call}: lease expired ${plan.interleave} the call, another worker took over`);
  if (plan.label !== "clean") count(world, `fault ${call}: ${plan.label.replaceAll("_", " ")}`);
}
