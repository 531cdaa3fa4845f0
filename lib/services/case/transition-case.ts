import type { Db, Prisma } from "@/lib/db/client";
import type { CaseCommand, CaseSnapshot } from "@/lib/domain/case-commands";
import type { Principal } from "@/lib/domain/principal";
import { decide } from "@/lib/domain/transitions";
import { AppError } from "@/lib/errors";
import { applyCaseChange, snapshotOf } from "./writer/change";

export type CaseRow = Prisma.CaseGetPayload<object>;

/** Names the bulk action a change was part of, in its audit row's evidence (absent for a single change). */
export type ChangeVia = { bulkPreviewId: string } | undefined;

export async function loadCase(tx: Db, caseId: string): Promise<CaseRow> {
  const row = await tx.case.findUnique({ where: { id: caseId } });
  if (!row) throw new AppError("not_found", "No such case.");
  return row;
}

/**
 * A case change for services that read and write in several steps inside a transaction: the pure
 * decision says whether and to what, and the case writer compares-and-sets it on (state, version)
 * with its audit row. A concurrent change makes the update match nothing, which surfaces as
 * `lost_race`, never as a silent no-op.
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
  const before = snapshotOf(row);
  const decision = decide(before, command);
  if (!decision.ok) throw decision.error;
  const { version } = await applyCaseChange(tx, {
    seen: { ...row, caseId: row.id },
    command: command.type,
    decision,
    actor,
    evidence: input.evidence ?? null,
    ...(input.extra ? { extra: input.extra } : {}),
  });
  return { before, after: decision.next, version };
}
