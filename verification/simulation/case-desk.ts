import type { UserActor } from "@/lib/services/access/actor";
import type { CaseView } from "./case-views";
import type { Steps } from "./steps";
import type { OpRecord, World } from "./world";

export type Desk = "review" | "finance";

// One booked visit per desk and case: the flag keeps changes in between from booking another.
const PENDING = { review: "reviewPending", finance: "financePending" } as const satisfies Record<Desk, keyof OpRecord>;

/**
 * What the reviewers' and finance's desks share: which case a visit is about, who at the desk
 * takes it, and booking the next visit. Every draw comes from the operation's own random stream,
 * in the order the desk asks, so a seed replays the same visits.
 */
export abstract class CaseDesk {
  constructor(
    protected readonly world: World,
    protected readonly steps: Steps,
  ) {}

  /**
   * The operation's case as the last step left it; none when the operation never parked or the
   * case is unknown. Clears the desk's flag first: a visit that finds nothing to do lets the next
   * change book another.
   */
  protected caseToVisit(index: number, desk: Desk): { op: OpRecord; view: CaseView } | null {
    const op = this.world.ops[index];
    if (!op?.caseId) return null;
    op[PENDING[desk]] = false;
    const view = this.steps.view(op.caseId);
    return view ? { op, view } : null;
  }

  /** Someone from the team, and the name the trace calls them by. */
  protected pickPerson(op: OpRecord, team: readonly UserActor[], fallback: string): { who: UserActor; as: string } {
    const who = op.plan.rng.pick(team);
    return { who, as: traceName(who, fallback) };
  }

  protected visitAgain(op: OpRecord, index: number, desk: Desk, afterMs: number): void {
    op[PENDING[desk]] = true;
    this.world.schedule.add(this.steps.later(afterMs), index, desk);
  }
}

export function traceName(person: UserActor, fallback: string): string {
  return person.email.split("@")[0] ?? fallback;
}
