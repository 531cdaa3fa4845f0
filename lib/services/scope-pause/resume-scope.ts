import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { PauseKind } from "@/lib/domain/scope-pauses";
import { AppError } from "@/lib/errors";
import type { ResumeScopeInput } from "@/lib/validation/scope-pauses";
import { requirePauser } from "./pause-scope";

/**
 * Ends a pause (decision 064): the next claim takes the scope's ready actions and the next permit
 * for it is issued again. One audit event keeps the pause as it was and who resumed it, and why;
 * the row itself is gone, so the claim's check is back to an empty table when nothing else is paused.
 */
export async function resumeScope(
  db: Db,
  actor: Principal,
  input: ResumeScopeInput,
): Promise<{ kind: PauseKind; value: string }> {
  const user = requirePauser(actor, input.kind, input.value);
  return inTransaction(db, async (tx) => {
    const [gone] = await tx.$queryRaw<{ reason: string; paused_by_label: string; paused_at: Date }[]>`
      DELETE FROM scope_pauses WHERE kind = ${input.kind}::"PauseKind" AND value = ${input.value}
      RETURNING reason, paused_by_label, paused_at`;
    if (!gone) throw new AppError("not_found", `The ${input.kind} ${input.value} is not paused.`);
    await recordAudit(tx, {
      actor: user,
      kind: "scope_resumed",
      before: {
        pauseKind: input.kind,
        value: input.value,
        reason: gone.reason,
        pausedBy: gone.paused_by_label,
        pausedAt: gone.paused_at.toISOString(),
      },
      after: { pauseKind: input.kind, value: input.value, reason: input.reason },
    });
    return { kind: input.kind, value: input.value };
  });
}
