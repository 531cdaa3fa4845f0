"use client";

import { Fragment, type ReactNode } from "react";
import { Time } from "@/components/ui/time";
import {
  acceptFailureAction,
  acceptOutputsLostAction,
  addNoteAction,
  approveAction,
  assignAction,
  reconcileAction,
  requestReplacementAction,
  reviewAction,
} from "@/lib/actions/case-actions";
import { availableCaseActions, type CaseActionName } from "@/lib/domain/available-actions";
import { orderDecisions } from "@/lib/domain/case-progress";
import { formatMicros } from "@/lib/domain/money";
import type { Role } from "@/lib/domain/roles";
import { permittedRecoveryAction, type RecoveryActionKind } from "@/lib/domain/stages";
import type { CaseDetail } from "@/lib/services/case/get-case";
import { EvidenceForm } from "./evidence-form";

type Person = { id: string; name: string; email: string };

const RECOVERY_WORDS: Record<RecoveryActionKind, { name: string; explanation: string }> = {
  resume_poll: {
    name: "resume status checks",
    explanation: "The worker asks the provider how the job stands. It never buys a new video.",
  },
  retry_delivery: {
    name: "retry copying the video",
    explanation: "The worker downloads the finished outputs again and verifies them. It never buys a new video.",
  },
};

export function CaseActions({
  detail,
  user,
  reviewers,
  onChanged,
}: {
  detail: CaseDetail;
  user: { id: string; roles: Role[] };
  reviewers: Person[];
  onChanged: () => void;
}) {
  const available = availableCaseActions(detail, user.roles);
  const caseId = detail.id;
  const workerBusy = detail.liveAction?.status === "claimed";
  const recovery = permittedRecoveryAction(detail.stage);
  const originalHold = detail.lineage.find((a) => a.attemptId === detail.attemptId)?.hold;
  const common = { onDone: onChanged };
  // A request still waiting for finance is shown as such: asking again would only be refused.
  const pendingRequest = detail.replacementRequests.find(
    (r) => r.status === "pending" && Date.parse(r.expiresAt) > Date.now(),
  );
  const decisions = orderDecisions(available, detail.progress.lastAttempt);
  // Someone who may not decide is told who can, instead of seeing an empty panel.
  const reviewerCould = [...availableCaseActions(detail, ["reviewer"])].some((name) => !available.has(name));
  const forms: Partial<Record<CaseActionName, ReactNode>> = {
    reconcile_attach: (
      <EvidenceForm
        title="Attach the discovered provider job"
        submitLabel="Attach job"
        {...common}
        onSubmit={(evidence, form) =>
          reconcileAction({
            caseId,
            input: { verdict: "attach", providerJobId: String(form.get("providerJobId") ?? ""), evidence },
          })
        }
      >
        <label className="mt-2 block text-sm font-medium">
          Provider job ID
          <input
            name="providerJobId"
            required
            className="mt-1 w-full rounded border border-slate-400 px-2 py-1 font-mono text-sm"
          />
        </label>
      </EvidenceForm>
    ),
    reconcile_no_job: (
      <EvidenceForm
        title="Confirm that no job exists"
        submitLabel="Confirm no job"
        variant="secondary"
        {...common}
        onSubmit={(evidence) => reconcileAction({ caseId, input: { verdict: "no_job", evidence } })}
      />
    ),
    approve: recovery && (
      <EvidenceForm
        title={`Approve: ${RECOVERY_WORDS[recovery].name}`}
        submitLabel={`Approve: ${RECOVERY_WORDS[recovery].name}`}
        variant={detail.progress.lastAttempt?.failed ? "secondary" : undefined}
        disabled={workerBusy}
        {...common}
        onSubmit={(evidence) => approveAction({ caseId, input: { action: recovery, evidence } })}
      >
        <p className="mt-1 text-sm">{RECOVERY_WORDS[recovery].explanation}</p>
      </EvidenceForm>
    ),
    accept_failure: (
      <EvidenceForm
        title="Accept the failure"
        submitLabel="Accept failure"
        variant="secondary"
        {...common}
        onSubmit={(evidence) => acceptFailureAction({ caseId, input: { evidence } })}
      />
    ),
    accept_outputs_lost: (
      <EvidenceForm
        title="Accept that the outputs are lost"
        submitLabel="Accept lost outputs"
        variant="secondary"
        {...common}
        onSubmit={(evidence) => acceptOutputsLostAction({ caseId, input: { evidence } })}
      >
        <p className="mt-1 text-sm">
          The provider deleted this job&apos;s outputs before a copy succeeded. The charge was made: the hold stays open
          for finance.
        </p>
      </EvidenceForm>
    ),
    request_replacement: pendingRequest ? (
      <p
        role="status"
        data-testid="replacement-pending"
        className="rounded border border-amber-400 bg-amber-50 p-3 text-sm"
      >
        <strong>Replacement requested: waiting for finance.</strong> A finance colleague (not the requester) authorises
        or declines it; unanswered, it expires <Time at={pendingRequest.expiresAt} />.
      </p>
    ) : (
      <EvidenceForm
        title="Request a replacement generation"
        submitLabel="Request replacement"
        variant="danger"
        {...common}
        onSubmit={(evidence) => requestReplacementAction({ caseId, input: { evidence } })}
      >
        <p className="mt-1 text-sm">
          A replacement is a new paid generation. Duplicate cost it risks:{" "}
          <strong data-testid="duplicate-cost">
            {detail.duplicateCost
              ? `${formatMicros(detail.duplicateCost.micros, detail.duplicateCost.currency)} (price table, ${detail.duplicateCost.basis})`
              : originalHold
                ? `${formatMicros(originalHold.amountMicros, originalHold.currency)} (the original attempt's hold)`
                : "unknown"}
          </strong>
          . A finance colleague (not you) must authorise it.
        </p>
      </EvidenceForm>
    ),
    review: (
      <EvidenceForm
        title="Escalate"
        submitLabel="Escalate"
        variant="secondary"
        {...common}
        onSubmit={(evidence) => reviewAction({ caseId, input: { verdict: "escalate", evidence } })}
      />
    ),
    assign: (
      <EvidenceForm
        title="Assign"
        submitLabel="Assign"
        evidenceLabel="Reason (kept in the timeline)"
        variant="secondary"
        {...common}
        onSubmit={async (reason, form) => {
          const assignee = String(form.get("assigneeId") ?? "");
          const result = await assignAction({ caseId, input: { assigneeId: assignee === "" ? null : assignee } });
          if (result.ok && reason.trim()) await addNoteAction({ caseId, input: { text: `Assigned: ${reason}` } });
          return result;
        }}
      >
        <label className="mt-2 block text-sm font-medium">
          Assignee
          <select
            name="assigneeId"
            defaultValue={detail.assignee?.id ?? ""}
            className="mt-1 w-full rounded border border-slate-400 px-2 py-1 text-sm"
          >
            <option value="">nobody</option>
            {reviewers.map((person) => (
              <option key={person.id} value={person.id}>
                {person.id === user.id ? `me (${person.name})` : `${person.name} (${person.email})`}
              </option>
            ))}
          </select>
        </label>
      </EvidenceForm>
    ),
    add_note: (
      <EvidenceForm
        title="Add a note"
        submitLabel="Add note"
        evidenceLabel="Note"
        variant="secondary"
        {...common}
        onSubmit={(text) => addNoteAction({ caseId, input: { text } })}
      />
    ),
  };
  return (
    <section aria-labelledby="actions-heading" className="space-y-3">
      <h2 id="actions-heading" className="font-semibold">
        Decisions
      </h2>
      {workerBusy && (
        <p role="status" className="rounded border border-sky-300 bg-sky-50 p-2 text-sm">
          A worker is running “{detail.liveAction ? RECOVERY_WORDS[detail.liveAction.kind].name : "the recovery"}” now
          {detail.liveAction?.leaseUntil ? (
            <>
              {" "}
              (lease until <Time at={detail.liveAction.leaseUntil} />)
            </>
          ) : null}
          . Decisions are paused until it finishes.
        </p>
      )}
      {reviewerCould && (
        <p data-testid="read-only-explanation" className="rounded border border-slate-300 bg-slate-50 p-2 text-sm">
          Deciding this case needs the reviewer role; you can read it
          {available.size > 0 ? " and use what is below" : ""}.
        </p>
      )}
      {decisions.map((name) => (
        <Fragment key={name}>{forms[name]}</Fragment>
      ))}
    </section>
  );
}
