import type { AuditKind, CaseCommand, CaseSnapshot } from "./case-commands";
import { type CaseState, STAGES, type Stage } from "./stages";
import { decide } from "./transitions";

/**
 * A decision that depends only on a case's stage and state, in the form a set-based statement
 * applies it to many cases at once (claims, lease rescues): from `from`, in any of `stages`, the
 * case moves to `to` and the audit row is `auditKind`. Read off `decide` itself, so the statement
 * can never move a case the decision would refuse, nor move it elsewhere.
 */
export type StateMove = { from: CaseState; stages: Stage[]; to: CaseState; auditKind: AuditKind };

/** The variants of a case in one stage and state that a set-based statement cannot tell apart. */
function variants(stage: Stage, state: CaseState): CaseSnapshot[] {
  const plain: CaseSnapshot = { stage, state, providerJobId: null };
  return [plain, { ...plain, providerJobId: "a-job" }, { ...plain, providerJobId: "a-job", outputsUnavailable: true }];
}

export function stateMove(command: CaseCommand, from: CaseState): StateMove {
  const moves = STAGES.flatMap((stage) =>
    variants(stage, from).flatMap((snapshot) => {
      const decision = decide(snapshot, command);
      if (!decision.ok) return [];
      const { next } = decision;
      if (next.stage !== snapshot.stage || next.providerJobId !== snapshot.providerJobId) {
        throw new Error(`${command.type} is not a state-only move`);
      }
      if (next.outputsUnavailable !== snapshot.outputsUnavailable) {
        throw new Error(`${command.type} is not a state-only move`);
      }
      return [{ stage, to: next.state, auditKind: decision.auditKind, variant: snapshot }];
    }),
  );
  const first = moves[0];
  if (!first) throw new Error(`${command.type} moves no case from ${from}`);
  if (moves.some((m) => m.to !== first.to || m.auditKind !== first.auditKind)) {
    throw new Error(`${command.type} moves cases from ${from} to more than one place`);
  }
  const stages = STAGES.filter((stage) => moves.some((m) => m.stage === stage));
  // Every variant of an allowed stage must be allowed, or the statement would move one it refuses.
  for (const stage of stages) {
    const allowed = moves.filter((m) => m.stage === stage).length;
    if (allowed !== variants(stage, from).length) throw new Error(`${command.type} depends on more than the stage`);
  }
  return { from, stages, to: first.to, auditKind: first.auditKind };
}
