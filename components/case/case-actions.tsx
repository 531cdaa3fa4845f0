"use client";

import { fieldError, SelectField } from "@/components/ui/form";
import { DECISION_LABEL } from "@/components/ui/labels";
import { Time } from "@/components/ui/time";
import { addNoteAction, assignAction } from "@/lib/actions/case-actions";
import { availableCaseActions, type CaseActionName } from "@/lib/domain/available-actions";
import { orderDecisions } from "@/lib/domain/case-progress";
import { ownedBySomeoneElse } from "@/lib/domain/ownership";
import type { Role } from "@/lib/domain/roles";
import type { CaseDetail } from "@/lib/services/case/get-case";
import { decisionChoices, noJobNotYet, splitFutileRepeat } from "./decision-options";
import { DecisionPanel } from "./decision-panel";
import { EvidenceForm } from "./evidence-form";

type Person = { id: string; name: string; email: string };

/**
 * The decisions this user may take on this case, in one panel, with notes and assignment beside it.
 * Who cannot decide is told who can, instead of seeing an empty panel.
 */
export function CaseActions({
  detail,
  now,
  user,
  reviewers,
  assignmentIsOwnership,
  onChanged,
}: {
  detail: CaseDetail;
  /** When `detail` was read (ms since the epoch), so server and browser render the same choices. */
  now: number;
  user: { id: string; roles: Role[] };
  reviewers: Person[];
  assignmentIsOwnership: boolean;
  onChanged: () => void;
}) {
  const ownedElsewhere = ownedBySomeoneElse({
    ownership: assignmentIsOwnership,
    assigneeId: detail.assignee?.id ?? null,
    person: user,
  });
  const available = availableCaseActions(detail, user.roles, { ownedElsewhere });
  const caseId = detail.id;
  const workerBusy = detail.liveAction?.status === "claimed";
  // A request still waiting for finance is shown as such: asking again would only be refused.
  const pendingRequest = detail.replacementRequests.find(
    (r) => r.status === "pending" && Date.parse(r.expiresAt) > now,
  );
  // "No job exists" before the settling period is over is said with its moment, not offered (DESIGN section 7).
  const noJobFrom = noJobNotYet(detail, now);
  // A job attached since the last attempt makes that attempt history, not a reason to reorder (decision 068).
  const ordered = (names: Iterable<CaseActionName>) =>
    orderDecisions(names, detail.lastAttemptApplies ? detail.progress.lastAttempt : null).filter(
      (name) => !(name === "request_replacement" && pendingRequest) && !(name === "reconcile_no_job" && noJobFrom),
    );
  const offered = (names: Iterable<CaseActionName>) => decisionChoices(detail, ordered(names));
  // A repeat that cannot help is held back behind "try again anyway" (decision 061).
  const split = splitFutileRepeat(detail, ordered(available));
  const choices = decisionChoices(detail, split.names);
  const reviewerChoices = offered(availableCaseActions(detail, ["reviewer"]));
  const readOnly =
    !ownedElsewhere && reviewerChoices.some((name) => !choices.includes(name) && name !== split.repeat?.choice);
  return (
    <section aria-labelledby="actions-heading" className="space-y-3">
      <h2 id="actions-heading" className="font-semibold">
        Decisions
      </h2>
      {workerBusy && (
        <p role="status" className="rounded border border-sky-300 bg-sky-50 p-2 text-sm">
          A worker is running “
          {detail.liveAction ? DECISION_LABEL[detail.liveAction.kind].label.toLowerCase() : "the recovery"}” now
          {detail.liveAction?.leaseUntil ? (
            <>
              {" "}
              (lease until <Time at={detail.liveAction.leaseUntil} />)
            </>
          ) : null}
          . Decisions are paused until it finishes.
        </p>
      )}
      {ownedElsewhere && reviewerChoices.length > 0 && (
        <p data-testid="owned-elsewhere" className="rounded border border-slate-300 bg-slate-50 p-2 text-sm">
          Assigned to {detail.assignee?.name ?? detail.assignee?.email}: while assignment means ownership, only they or
          an admin decide this case. Reassign it to yourself to decide it.
        </p>
      )}
      {readOnly && (
        <p data-testid="read-only-explanation" className="rounded border border-slate-300 bg-slate-50 p-2 text-sm">
          Deciding this case needs the reviewer role: a reviewer chooses between{" "}
          {reviewerChoices.map((name) => DECISION_LABEL[name].label.toLowerCase()).join(", ")}. You can read it
          {available.has("add_note") || available.has("assign") ? ", add notes and assign it" : ""}.
        </p>
      )}
      {pendingRequest && (
        <p
          role="status"
          data-testid="replacement-pending"
          className="rounded border border-amber-400 bg-amber-50 p-3 text-sm"
        >
          <strong>Replacement requested: waiting for finance.</strong> A finance colleague (not the requester)
          authorises or declines it; unanswered, it expires <Time at={pendingRequest.expiresAt} />.
        </p>
      )}
      {noJobFrom && available.has("reconcile_no_job") && (
        <p data-testid="no-job-not-yet" className="rounded border border-slate-300 bg-slate-50 p-2 text-sm">
          Recording that no job exists is allowed from <Time at={noJobFrom} />: until the provider's settling period is
          over, a late job may still appear.
        </p>
      )}
      {(choices.length > 0 || split.repeat) && (
        <DecisionPanel
          detail={detail}
          choices={choices}
          repeat={split.repeat}
          disabled={workerBusy}
          onChanged={onChanged}
        />
      )}
      {available.has("add_note") && (
        <EvidenceForm
          title="Add a note"
          submitLabel="Add note"
          evidenceLabel="Note"
          evidencePath="input.text"
          onDone={onChanged}
          onSubmit={(text) => addNoteAction({ caseId, input: { text } })}
        />
      )}
      {available.has("assign") && (
        <EvidenceForm
          title="Assign"
          submitLabel="Assign"
          evidenceLabel="Reason (kept in the timeline)"
          evidencePath="input.reason"
          onDone={onChanged}
          onSubmit={async (reason, form) => {
            const assignee = String(form.get("assigneeId") ?? "");
            // One action, one timeline entry: the reason travels with the assignment, not as a note beside it.
            return assignAction({
              caseId,
              input: { assigneeId: assignee === "" ? null : assignee, ...(reason.trim() ? { reason } : {}) },
            });
          }}
        >
          {(result) => (
            <SelectField
              id={`assignee-${caseId}`}
              path="input.assigneeId"
              label="Assignee"
              name="assigneeId"
              defaultValue={detail.assignee?.id ?? ""}
              error={fieldError(result, "input.assigneeId")}
              className="mt-2"
            >
              <option value="">nobody</option>
              {reviewers.map((person) => (
                <option key={person.id} value={person.id}>
                  {person.id === user.id ? `me (${person.name})` : `${person.name} (${person.email})`}
                </option>
              ))}
            </SelectField>
          )}
        </EvidenceForm>
      )}
    </section>
  );
}
