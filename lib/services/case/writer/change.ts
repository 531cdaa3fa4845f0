import { type AuditRow, insertAuditRows, recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { AuditKind, CaseCommandType, CaseSnapshot } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { scopeOf } from "@/lib/domain/producer-scope";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";

/** A decision `decide()` allowed. */
export type Decided = { next: CaseSnapshot; auditKind: AuditKind; changesState: boolean };

/** The case as a decision was made on it: what the compare-and-set checks. */
export type CaseSeen = {
  caseId: string;
  stage: Stage;
  state: CaseState;
  providerJobId: string | null;
  version: number;
  episode: number;
  outputsUnavailableAt?: Date | null;
};

export function snapshotOf(
  row: Pick<CaseSeen, "stage" | "state" | "providerJobId"> & { outputsUnavailableAt?: Date | null },
): CaseSnapshot {
  const snapshot: CaseSnapshot = { stage: row.stage, state: row.state, providerJobId: row.providerJobId };
  return row.outputsUnavailableAt ? { ...snapshot, outputsUnavailable: true } : snapshot;
}

/**
 * What a decision does to the row's timestamps, decided here only: `resolved_at` is set when the
 * case becomes resolved, `outputs_unavailable_at` when the outputs are found gone (kept if already
 * set) and cleared when a new episode forgets them. A resolution also clears the deadline flag: a
 * resolved case has no deadline left to miss (decision 061).
 */
export type Timestamps = { resolves: boolean; outputs: "set" | "clear" | "keep" };

export function timestampsOf(before: CaseSnapshot, next: CaseSnapshot): Timestamps {
  const outputs =
    next.outputsUnavailable === before.outputsUnavailable ? "keep" : next.outputsUnavailable ? "set" : "clear";
  return { resolves: next.state === "resolved" && before.state !== "resolved", outputs };
}

/** The same two facts as SQL assignments, from values (one case) or columns (many). */
export function timestampAssignments(resolves: Prisma.Sql, outputs: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`resolved_at = CASE WHEN ${resolves} THEN now() ELSE c.resolved_at END,
    escalated_at = CASE WHEN ${resolves} THEN NULL ELSE c.escalated_at END,
    escalation_reason = CASE WHEN ${resolves} THEN NULL ELSE c.escalation_reason END,
    outputs_unavailable_at = CASE ${outputs} WHEN 'set' THEN coalesce(c.outputs_unavailable_at, now())
                                             WHEN 'clear' THEN NULL ELSE c.outputs_unavailable_at END`;
}

/**
 * The compare-and-set on a case row (alias `c`) as one opaque condition for an UPDATE: `IS TRUE`
 * keeps the planner from turning `state = …` into an index condition (walking every case in that
 * state), so the row is reached by primary key, and the UPDATE re-checks it on the latest row
 * version as usual. Writes that must all or none happen with the case update hang off its RETURNING.
 */
export function casIs(seen: { state: CaseState; version: number }): Prisma.Sql {
  return Prisma.sql`(c.state = ${seen.state}::"CaseState" AND c.version = ${seen.version}) IS TRUE`;
}

/**
 * The actor's scope (decision 054) as a condition on the case row (alias `c`); TRUE when the actor
 * sees every producer. The writer applies it to the rows it updates, so a path that read a case some
 * other way (a bulk statement, say) still cannot change another shop's case.
 */
export function writableScopeSql(actor: Principal): Prisma.Sql {
  const scope = scopeOf(actor);
  return scope === null ? Prisma.sql`TRUE` : Prisma.sql`c.producer = ANY(${[...scope]}::text[])`;
}

/** Every compare-and-set that matched nothing is counted here, whichever path made it. */
export function countConflicts(command: CaseCommandType, count = 1): void {
  if (count > 0) increment("recovery_case_conflicts_total", { command }, count);
}

/** The audit rows' before and after: the snapshot with the version it had and the one it gets. */
export function auditSnapshots(seen: CaseSeen, decision: Decided, version = seen.version + 1) {
  return {
    before: { ...snapshotOf(seen), version: seen.version },
    after: { ...decision.next, version },
  };
}

/**
 * One case change as two CTEs for a single statement: `moved` compares-and-sets the case on the
 * (state, version) the decision was made on and applies the decision, and `audited` writes its audit
 * row (after any `precededBy` rows) off `moved`, so either both land or neither. The caller adds what
 * else the row gets (`set`), what the update joins (`from`, `where`), and hangs its own writes off `moved`.
 */
export function caseChange(input: {
  decision: Decided;
  seen: CaseSeen;
  actor: Principal;
  evidence: Prisma.InputJsonValue;
  set?: Prisma.Sql;
  from?: Prisma.Sql;
  where?: Prisma.Sql;
  precededBy?: { rows: AuditRow[]; gate: Prisma.Sql };
}): Prisma.Sql {
  const { decision, seen } = input;
  const next = decision.next;
  const times = timestampsOf(snapshotOf(seen), next);
  const row: AuditRow = { kind: decision.auditKind, ...auditSnapshots(seen, decision), evidence: input.evidence };
  const audit = insertAuditRows({
    source: Prisma.sql`moved`,
    actor: input.actor,
    episode: seen.episode,
    rows: [...(input.precededBy?.rows.map((r) => ({ ...r, gated: true })) ?? []), row],
    ...(input.precededBy ? { gate: input.precededBy.gate } : {}),
  });
  return Prisma.sql`moved AS (
      UPDATE cases c
      SET stage = ${next.stage}::"Stage", state = ${next.state}::"CaseState", provider_job_id = ${next.providerJobId},
          version = c.version + 1, updated_at = now(),
          ${timestampAssignments(Prisma.sql`${times.resolves}`, Prisma.sql`${times.outputs}::text`)}
          ${input.set ? Prisma.sql`, ${input.set}` : Prisma.empty}
      ${input.from ? Prisma.sql`FROM ${input.from}` : Prisma.empty}
      WHERE c.id = ${seen.caseId}::uuid AND ${casIs(seen)} ${input.where ? Prisma.sql`AND ${input.where}` : Prisma.empty}
      RETURNING c.id, c.attempt_ref
    ), audited AS (
      ${audit}
    )`;
}

/**
 * How a claim holder's single statement ended, from its `held` and `moved` counts: written, `stale`
 * (the claim is held but the case changed since it was read: a conflict, asked again under locks)
 * or `lost_claim`.
 */
export function claimWriteEnded(
  command: CaseCommandType,
  counts: { held: bigint | number | undefined; moved: bigint | number | undefined } | undefined,
): "moved" | "stale" | "lost_claim" {
  if (Number(counts?.moved) === 1) return "moved";
  if (Number(counts?.held) !== 1) return "lost_claim";
  countConflicts(command);
  return "stale";
}

export const LOST_RACE_MESSAGE = "Someone else changed this case first; reload to see what happened.";

type CaseRowForChange = CaseSeen & { id?: string };

/**
 * The same change inside a transaction through the client, for the services that read and write
 * in several steps: compare-and-set on (state, version), then the audit row. A command that changes
 * nothing about the case and brings no `extra` writes only its audit row.
 */
export async function applyCaseChange(
  tx: Db,
  input: {
    seen: CaseRowForChange;
    command: CaseCommandType;
    decision: Decided;
    actor: Principal;
    evidence: Prisma.InputJsonValue | null;
    extra?: Prisma.CaseUncheckedUpdateManyInput;
  },
): Promise<{ version: number }> {
  const { seen, decision } = input;
  const before = snapshotOf(seen);
  let version = seen.version;
  if (decision.changesState || input.extra) {
    const times = timestampsOf(before, decision.next);
    const now = new Date();
    const scope = scopeOf(input.actor);
    const { count } = await tx.case.updateMany({
      // The caller checked the scope on the row it read (`loadCase`); this is the writer's own check.
      where: {
        id: seen.caseId,
        state: seen.state,
        version: seen.version,
        ...(scope ? { producer: { in: [...scope] } } : {}),
      },
      data: {
        stage: decision.next.stage,
        state: decision.next.state,
        providerJobId: decision.next.providerJobId,
        version: { increment: 1 },
        updatedAt: now,
        ...(times.resolves ? { resolvedAt: now, escalatedAt: null, escalationReason: null } : {}),
        ...(times.outputs !== "keep" ? { outputsUnavailableAt: times.outputs === "set" ? now : null } : {}),
        ...input.extra,
      },
    });
    if (count === 0) {
      countConflicts(input.command);
      throw new AppError("lost_race", LOST_RACE_MESSAGE);
    }
    version += 1;
  }
  await recordAudit(tx, {
    actor: input.actor,
    kind: decision.auditKind,
    caseId: seen.caseId,
    episode: seen.episode,
    ...auditSnapshots(seen, decision, version),
    evidence: input.evidence,
  });
  return { version };
}
