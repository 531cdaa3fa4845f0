import type { Db, Prisma } from "@/lib/db/client";
import type { CaseCommand, CaseSnapshot } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { AppError } from "@/lib/errors";
import { increment } from "@/lib/metrics/counters";
import { recordAudit } from "./record-audit";

export type CaseRow = Prisma.CaseGetPayload<object>;

export function snapshotOf(
  row: Pick<CaseRow, "stage" | "state" | "providerJobId"> & { outputsUnavailableAt?: Date | null },
): CaseSnapshot {
  const snapshot: CaseSnapshot = { stage: row.stage, state: row.state, providerJobId: row.providerJobId };
  return row.outputsUnavailableAt ? { ...snapshot, outputsUnavailable: true } : snapshot;
}

export async function loadCase(tx: Db, caseId: string): Promise<CaseRow> {
  const row = await tx.case.findUnique({ where: { id: caseId } });
  if (!row) throw new AppError("not_found", "No such case.");
  return row;
}

export const LOST_RACE_MESSAGE = "Someone else changed this case first; reload to see what happened.";

/**
 * The one way a case changes: the pure decision says whether and to what, then a compare-and-set
 * on (state, version) applies it, and the audit row lands in the same transaction. A concurrent
 * change makes the update match nothing, which surfaces as `lost_race`, never as a silent no-op.
 */
export async function transitionCase(
  tx: Db,
  input: {
    row: CaseRow;
    command: CaseCommand;
    actor: Principal;
    evidence?: Prisma.InputJsonValue;
    extra?: Prisma.CaseUncheckedUpdateManyInput;
  },
): Promise<{ before: CaseSnapshot; after: CaseSnapshot; version: number }> {
  const { row, command, actor } = input;
  const decision = decide(snapshotOf(row), command);
  if (!decision.ok) throw decision.error;
  const before = snapshotOf(row);
  let version = row.version;
  if (decision.changesState || input.extra) {
    const { count } = await tx.case.updateMany({
      where: { id: row.id, state: row.state, version: row.version },
      data: {
        stage: decision.next.stage,
        state: decision.next.state,
        providerJobId: decision.next.providerJobId,
        version: { increment: 1 },
        updatedAt: new Date(),
        ...(decision.next.state === "resolved" && row.state !== "resolved" ? { resolvedAt: new Date() } : {}),
        ...(decision.next.outputsUnavailable !== before.outputsUnavailable
          ? { outputsUnavailableAt: decision.next.outputsUnavailable ? new Date() : null }
          : {}),
        ...input.extra,
      },
    });
    if (count === 0) {
      increment("recovery_case_conflicts_total", { command: command.type });
      throw new AppError("lost_race", LOST_RACE_MESSAGE);
    }
    version += 1;
  }
  await recordAudit(tx, {
    actor,
    kind: decision.auditKind,
    caseId: row.id,
    episode: row.episode,
    before: { ...before, version: row.version },
    after: { ...decision.next, version },
    evidence: input.evidence ?? null,
  });
  return { before, after: decision.next, version };
}
