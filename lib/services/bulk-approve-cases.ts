import type { Db, Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { permittedRecoveryAction } from "@/lib/domain/stages";
import { AppError } from "@/lib/errors";
import type { BulkApproveInput } from "@/lib/validation/bulk";
import { requirePermission } from "./actor";
import { approveCase } from "./approve-case";

export const DEFAULT_BULK_LIMIT = 500;

type Target = BulkApproveInput["target"];

function targetWhere(stage: BulkApproveInput["stage"], target: Target, now: Date): Prisma.CaseWhereInput {
  const base: Prisma.CaseWhereInput = { stage, state: "parked" };
  if (target.kind === "ids") return { ...base, id: { in: target.caseIds } };
  const f = target.filter;
  return {
    ...base,
    ...(f.provider ? { provider: f.provider } : {}),
    ...(f.model ? { model: f.model } : {}),
    ...(f.assigneeId ? { assigneeId: f.assigneeId } : {}),
    ...(f.minAgeSeconds !== undefined ? { openedAt: { lte: new Date(now.getTime() - f.minAgeSeconds * 1000) } } : {}),
    ...(f.minAmountMicros !== undefined ? { heldMicros: { gte: BigInt(f.minAmountMicros) } } : {}),
    ...(f.q ? { OR: [{ operationId: f.q }, { attemptId: f.q }, { providerJobId: f.q }] } : {}),
  };
}

/** What a bulk approval would touch: shown in the confirmation before anything is decided. */
export async function previewBulkApprove(
  db: Db,
  actor: Principal,
  input: Omit<BulkApproveInput, "evidence">,
  limit = DEFAULT_BULK_LIMIT,
) {
  requirePermission(actor, "case:approve");
  const where = targetWhere(input.stage, input.target, new Date());
  const [count, perCurrency] = await Promise.all([
    db.case.count({ where }),
    db.case.groupBy({ by: ["currency"], where, _sum: { heldMicros: true } }),
  ]);
  return {
    matching: count,
    willApprove: Math.min(count, limit),
    limit,
    heldByCurrency: perCurrency.map((row) => ({ currency: row.currency, micros: Number(row._sum.heldMicros ?? 0n) })),
  };
}

/**
 * Approves the stage's own recovery for many parked cases with one evidence note. Each case still
 * gets its own decision, action and audit event through the single-case service, so bulk can never
 * do what one approval could not. Capped, oldest first; cases that moved on meanwhile are reported.
 */
export async function bulkApproveCases(db: Db, actor: Principal, input: BulkApproveInput, limit = DEFAULT_BULK_LIMIT) {
  requirePermission(actor, "case:approve");
  const action = permittedRecoveryAction(input.stage);
  if (!action) throw new AppError("invalid_request", "Bulk approval is only for polling and delivery cases.");
  const targets = await db.case.findMany({
    where: targetWhere(input.stage, input.target, new Date()),
    orderBy: [{ openedAt: "asc" }, { id: "asc" }],
    take: limit,
    select: { id: true },
  });
  const approved: string[] = [];
  const skipped: { caseId: string; code: string; message: string }[] = [];
  for (const { id } of targets) {
    try {
      const result = await approveCase(db, actor, id, { action, evidence: input.evidence });
      approved.push(result.actionId);
    } catch (error) {
      const known = error as { code?: string; message?: string };
      if (!known.code) throw error;
      skipped.push({ caseId: id, code: known.code, message: known.message ?? "" });
    }
  }
  return { action, approved: approved.length, skipped };
}
