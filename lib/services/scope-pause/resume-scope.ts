import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import type { PauseKind } from "@/lib/domain/scope-pauses";
import { AppError } from "@/lib/errors";
import type { ResumeScopeInput } from "@/lib/validation/scope-pauses";
import { requirePauser } from "./pause-scope";
import { closePauses } from "./writer/pauses";

/**
 * Ends a person's pause (decisions 064, 070): the next claim takes the scope's ready actions and the
 * next permit for it is issued again, unless the breaker's own pause of it still runs. One audit
 * event keeps the pause as it was and who resumed it, and why; the row is closed, so it leaves the
 * claim's partial index and the check is back to an empty index when nobody paused anything else.
 */
export async function resumeScope(
  db: Db,
  actor: Principal,
  input: ResumeScopeInput,
): Promise<{ kind: PauseKind; value: string }> {
  const user = requirePauser(actor, input.kind, input.value);
  return inTransaction(db, async (tx) => {
    const [gone] = await closePauses(
      tx,
      { cause: "person", kind: input.kind, value: input.value },
      { label: user.name || user.email, reason: input.reason },
    );
    if (!gone) throw new AppError("not_found", `The ${input.kind} ${input.value} is not paused.`);
    await recordAudit(tx, {
      actor: user,
      kind: "scope_resumed",
      before: {
        pauseKind: input.kind,
        value: input.value,
        reason: gone.reason,
        pausedBy: gone.pausedBy,
        pausedAt: gone.pausedAt.toISOString(),
      },
      after: { pauseKind: input.kind, value: input.value, reason: input.reason },
    });
    return { kind: input.kind, value: input.value };
  });
}
