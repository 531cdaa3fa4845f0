import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { GLOBAL_RETENTION_SCOPE } from "@/lib/domain/retention";
import { AppError } from "@/lib/errors";
import type { RetentionPolicyInput } from "@/lib/validation/retention";
import { requirePermission } from "../access/actor";
import { type RetentionDryRun, retentionFigures } from "./eligible-cases";

export type RetentionPolicyView = {
  /** Days after resolution for every producer without its own; null: off. */
  globalDays: number | null;
  producers: Array<{ producer: string; days: number | null }>;
  nextRunAt: Date;
  lastRunAt: Date | null;
  lastRedacted: number;
};

/** The policy and the schedule, as the overview and the admin page show them (nothing evicted silently). */
export async function retentionPolicyView(db: Db): Promise<RetentionPolicyView> {
  const [rows, schedule] = await Promise.all([
    db.retentionPolicy.findMany({ orderBy: { scope: "asc" } }),
    db.retentionSchedule.findUnique({ where: { id: true } }),
  ]);
  return {
    globalDays: rows.find((r) => r.scope === GLOBAL_RETENTION_SCOPE)?.days ?? null,
    producers: rows.filter((r) => r.scope !== GLOBAL_RETENTION_SCOPE).map((r) => ({ producer: r.scope, days: r.days })),
    nextRunAt: schedule?.nextRunAt ?? new Date(),
    lastRunAt: schedule?.lastRunAt ?? null,
    lastRedacted: schedule?.lastRedacted ?? 0,
  };
}

export async function getRetentionPolicy(db: Db, actor: Principal): Promise<RetentionPolicyView> {
  requirePermission(actor, "admin:settings");
  return retentionPolicyView(db);
}

/** What a run now would touch, without touching it. */
export async function dryRunRetention(db: Db, actor: Principal, now = new Date()): Promise<RetentionDryRun> {
  requirePermission(actor, "admin:settings");
  return retentionFigures(db, now);
}

/** Sets the global policy or a producer's own (or drops a producer's, "global"), audited with what it replaced. */
export async function saveRetentionPolicy(db: Db, actor: Principal, input: RetentionPolicyInput) {
  const admin = requirePermission(actor, "admin:settings");
  const scope = input.producer ?? GLOBAL_RETENTION_SCOPE;
  if (input.days === "global" && input.producer === null) {
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "days", message: "the global policy is a number of days or off" }],
    });
  }
  return inTransaction(db, async (tx) => {
    // The row lock orders two admins saving at once, so each audit row's "before" is what it replaced.
    const [before] = await tx.$queryRaw<{ days: number | null }[]>`
      SELECT days FROM retention_policies WHERE scope = ${scope} FOR UPDATE`;
    const beforeDays = before ? before.days : input.producer ? "global" : null;
    if (input.days === "global") {
      await tx.retentionPolicy.deleteMany({ where: { scope } });
    } else {
      await tx.retentionPolicy.upsert({
        where: { scope },
        create: { scope, days: input.days, updatedById: admin.userId },
        update: { days: input.days, updatedById: admin.userId, updatedAt: new Date() },
      });
    }
    await recordAudit(tx, {
      actor: admin,
      kind: "retention_policy_updated",
      before: { producer: input.producer, days: beforeDays },
      after: { producer: input.producer, days: input.days },
    });
    return { producer: input.producer, days: input.days };
  });
}
