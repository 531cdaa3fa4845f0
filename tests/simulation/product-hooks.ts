import type { PrismaClient } from "../../lib/db/client";
import type { CaseActionName } from "../../lib/domain/available-actions";
import type { UserActor } from "../../lib/services/actor";
import type { CaseView } from "./case-views";

/**
 * Where the simulation meets product behaviour that is decided elsewhere: each hook is the one
 * place to connect it, so the people and the auditor need not change when it arrives.
 */

/**
 * Whether finance, the overview and the queue show this resolved case as "resolved, hold open -
 * needs a decision". Nothing in the product marks such cases yet, so none is flagged.
 */
export function isFlaggedForFinance(_view: CaseView): boolean {
  return false;
}

/** A decision the console may offer on a delivery case whose outputs the provider deleted. */
export type OutputsGoneDecision = "accept_loss" | "request_replacement";

/**
 * Services for the outputs-gone decisions, by decision name. Empty while the product offers none:
 * the reviewer then escalates, and the auditor counts the case as one without a next step.
 */
export const outputsGoneServices: Partial<
  Record<
    OutputsGoneDecision,
    (db: PrismaClient, who: UserActor, caseId: string, input: { evidence: string }) => Promise<unknown>
  >
> = {};

/**
 * The reviewer's choice on an outputs-gone delivery case among what the console offers: a
 * replacement when the shop still needs the video (`wantsVideo`), else accepting the loss.
 */
export function chooseOutputsGoneDecision(
  offered: ReadonlySet<string>,
  wantsVideo: boolean,
): OutputsGoneDecision | null {
  const usable = (name: OutputsGoneDecision) => offered.has(name) && outputsGoneServices[name] !== undefined;
  if (wantsVideo && usable("request_replacement")) return "request_replacement";
  if (usable("accept_loss")) return "accept_loss";
  return usable("request_replacement") ? "request_replacement" : null;
}

/** Console actions that are not decisions: they never move a case on. */
export const NOT_DECISIONS: ReadonlySet<CaseActionName | string> = new Set(["add_note", "assign", "review"]);
