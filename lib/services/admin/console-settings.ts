import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

export type ConsoleSettings = { assignmentIsOwnership: boolean; updatedAt: Date | null };

/** The settings as they apply now (the migration writes the one row; defaults if it is ever gone). */
export async function consoleSettings(db: Db): Promise<ConsoleSettings> {
  const row = await db.consoleSetting.findUnique({ where: { id: true } });
  return {
    assignmentIsOwnership: row?.assignmentIsOwnership ?? false,
    updatedAt: row?.updatedById ? row.updatedAt : null,
  };
}

/** Turns "assignment means ownership" on or off, with the value it replaced in the audit row. */
export async function saveConsoleSettings(db: Db, actor: Principal, input: { assignmentIsOwnership: boolean }) {
  const admin = requirePermission(actor, "admin:settings");
  return inTransaction(db, async (tx) => {
    // The row lock orders two admins saving at once, so each audit row's "before" is what it replaced.
    const [before] = await tx.$queryRaw<{ assignment_is_ownership: boolean }[]>`
      SELECT assignment_is_ownership FROM console_settings WHERE id FOR UPDATE`;
    const saved = await tx.consoleSetting.upsert({
      where: { id: true },
      create: { assignmentIsOwnership: input.assignmentIsOwnership, updatedById: admin.userId },
      update: { assignmentIsOwnership: input.assignmentIsOwnership, updatedById: admin.userId, updatedAt: new Date() },
    });
    await recordAudit(tx, {
      actor: admin,
      kind: "console_settings_updated",
      before: { assignmentIsOwnership: before?.assignment_is_ownership ?? false },
      after: { assignmentIsOwnership: saved.assignmentIsOwnership },
    });
    return { assignmentIsOwnership: saved.assignmentIsOwnership };
  });
}
