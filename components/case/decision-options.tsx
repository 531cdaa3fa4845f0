import type { ReactNode } from "react";
import { DECISION_LABEL, type DecisionChoice } from "@/components/ui/labels";
import { Money } from "@/components/ui/money";
import {
  acceptFailureAction,
  acceptOutputsLostAction,
  approveAction,
  reconcileAction,
  requestReplacementAction,
  reviewAction,
} from "@/lib/actions/case-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import type { CaseActionName } from "@/lib/domain/available-actions";
import { describeAttempt } from "@/lib/domain/case-progress";
import { permittedRecoveryAction } from "@/lib/domain/stages";
import type { CaseDetail } from "@/lib/services/case/get-case";

export type DecisionInput = { choice: DecisionChoice; evidence: string; providerJobId: string };

/** The one server action each choice runs; every one validates, authorises and decides on the server. */
export function submitDecision(caseId: string, { choice, evidence, providerJobId }: DecisionInput) {
  const calls: Record<DecisionChoice, () => Promise<ActionResult<unknown>>> = {
    reconcile_attach: () => reconcileAction({ caseId, input: { verdict: "attach", providerJobId, evidence } }),
    reconcile_no_job: () => reconcileAction({ caseId, input: { verdict: "no_job", evidence } }),
    resume_poll: () => approveAction({ caseId, input: { action: "resume_poll", evidence } }),
    retry_delivery: () => approveAction({ caseId, input: { action: "retry_delivery", evidence } }),
    accept_failure: () => acceptFailureAction({ caseId, input: { evidence } }),
    accept_outputs_lost: () => acceptOutputsLostAction({ caseId, input: { evidence } }),
    request_replacement: () => requestReplacementAction({ caseId, input: { evidence } }),
    escalate: () => reviewAction({ caseId, input: { verdict: "escalate", evidence } }),
  };
  return calls[choice]();
}

/** The permitted decisions (already in the order the evidence supports) as choices; notes and assignment are not decisions. */
export function decisionChoices(detail: CaseDetail, names: readonly CaseActionName[]): DecisionChoice[] {
  const recovery = permittedRecoveryAction(detail.stage);
  return names.flatMap((name): DecisionChoice[] => {
    if (name === "approve") return recovery ? [recovery] : [];
    if (name === "review") return ["escalate"];
    if (name === "add_note" || name === "assign") return [];
    return [name];
  });
}

/** The stage's recovery held back after a failure it cannot get past, with that failure in words. */
export type HeldBackRepeat = { choice: DecisionChoice; failure: string; why: string };

/**
 * Splits off the repeat of what just failed when repeating cannot help (decision 061): the steps that
 * can help are offered first, and the repeat only behind "try again anyway" with the failure quoted.
 * Whether it can help is the server's reading (`repeatCannotHelp`), the one the decisions use, so a
 * job attached since the failed check is checked again without being held back (decision 068).
 */
export function splitFutileRepeat(
  detail: CaseDetail,
  names: readonly CaseActionName[],
): { names: CaseActionName[]; repeat: HeldBackRepeat | null } {
  const last = detail.progress.lastAttempt;
  const recovery = permittedRecoveryAction(detail.stage);
  const why = detail.repeatCannotHelp;
  if (!why || !last || !recovery || !names.includes("approve")) return { names: [...names], repeat: null };
  return {
    names: names.filter((name) => name !== "approve"),
    repeat: { choice: recovery, failure: describeAttempt(last), why },
  };
}

/**
 * "No job exists" before the provider's settling period is over would only be refused: the page says
 * from when it may be recorded instead of offering it (DESIGN section 7).
 */
export function noJobNotYet(detail: CaseDetail, now: number): string | null {
  if (detail.noJobFrom === null) return null;
  return Date.parse(detail.noJobFrom) > now ? detail.noJobFrom : null;
}

/** A choice's name on this case: on a job the provider does not know, an attach replaces that job. */
export function choiceLabel(choice: DecisionChoice, detail: CaseDetail): string {
  if (choice === "reconcile_attach" && detail.stage === "polling") return "Attach a different job…";
  return DECISION_LABEL[choice].label;
}

/** What confirming a choice does, in words, with the money it involves. */
export function consequenceOf(choice: DecisionChoice, detail: CaseDetail, providerJobId: string): ReactNode {
  const held = <Money micros={detail.heldMicros} currency={detail.currency} />;
  const job = detail.providerJobId ? <code>{detail.providerJobId}</code> : "the job";
  switch (choice) {
    case "reconcile_attach":
      return detail.stage === "polling" ? (
        <>
          Attaches provider job <code>{providerJobId}</code> in place of {job}, which the provider does not know; the
          case stays a job to check, now of the new job. Nothing is bought. Money on hold stays held: {held}.
        </>
      ) : (
        <>
          Attaches provider job <code>{providerJobId}</code> to this case; the case becomes a job to check. Nothing is
          bought. Money on hold stays held: {held}.
        </>
      );
    case "reconcile_no_job":
      return (
        <>
          Records that the provider has no job for this {detail.stage === "polling" ? "case" : "submission"}; the case
          becomes a failed generation. Nothing is bought. Money on hold stays held until finance releases it: {held}.
        </>
      );
    case "resume_poll":
      return (
        <>
          Queues status checks of {job} for the worker. It never buys a new video. Money on hold stays held until the
          outcome is known: {held}.
        </>
      );
    case "retry_delivery":
      return (
        <>
          Queues copying the finished video of {job} again. It never buys a new video. Money on hold stays held: {held}.
        </>
      );
    case "accept_failure":
      return <>Closes this case as failed. Nothing is bought; finance settles or releases the money on hold: {held}.</>;
    case "accept_outputs_lost":
      return (
        <>
          Closes this case with its outputs lost. The provider charged for the job: the money on hold stays open for
          finance: {held}.
        </>
      );
    case "request_replacement":
      return <ReplacementCost detail={detail} held={held} />;
    case "escalate":
      return <>Marks this case as escalated for someone more senior. Nothing runs; money on hold stays held: {held}.</>;
  }
}

function ReplacementCost({ detail, held }: { detail: CaseDetail; held: ReactNode }) {
  const original = detail.lineage.find((a) => a.attemptId === detail.attemptId)?.hold;
  const price = detail.duplicateCost;
  const originalHold = original ? <Money micros={original.amountMicros} currency={original.currency} /> : null;
  return (
    <>
      Asks finance for one new paid generation; a finance colleague (not you) must authorise it
      {originalHold ? <>, which reserves a new hold of {originalHold}</> : null}.{" "}
      <strong data-testid="duplicate-cost">
        {price ? (
          <>
            A new video costs <Money micros={price.micros} currency={price.currency} /> (price table, {price.basis}).
          </>
        ) : originalHold ? (
          <>The price table has no price for this model; the original attempt's hold was {originalHold}.</>
        ) : (
          "The price of a new video is not known."
        )}
      </strong>{" "}
      Money already on hold for this case: {held}.
    </>
  );
}
