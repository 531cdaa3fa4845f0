import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { PausedWork } from "@/app/(console)/paused-work";
import { CaseLive } from "@/components/case/case-live";
import { CaseNavigation } from "@/components/case/case-navigation";
import { DuplicateOutputFlags } from "@/components/case/duplicate-output-flags";
import { NotificationLog } from "@/components/case/notification-log";
import { OperationMatches } from "@/components/case/operation-matches";
import { caseEvidenceHrefs, EvidenceLinks } from "@/components/evidence/evidence-links";
import { SuspectedDuplicates } from "@/components/finance/suspected-duplicates";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { can } from "@/lib/domain/roles";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { consoleSettings } from "@/lib/services/admin/console-settings";
import { listAssignableUsers } from "@/lib/services/admin/list-assignable-users";
import { caseNeighbours } from "@/lib/services/case/case-neighbours";
import { findCasesByOperation } from "@/lib/services/case/find-cases-by-operation";
import { getCase } from "@/lib/services/case/get-case";
import { listDuplicateOutputs } from "@/lib/services/case/list-duplicate-outputs";
import { listSuspectedDuplicates } from "@/lib/services/case/list-suspected-duplicates";
import { caseNotificationLog } from "@/lib/services/notification/case-notification-log";
import { parseQueueParams, queueQueryString } from "@/lib/validation/queue-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Case" };

export default async function CasePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ from?: string | string[] }>;
}) {
  const user = await requirePageUser("case:read");
  const { id } = await params;
  const from = (await searchParams).from;
  const detail = /^[0-9a-f-]{36}$/i.test(id)
    ? await getCase(db(), user, id, env()).catch((error: unknown) => {
        if (error instanceof AppError && error.code === "not_found") return null;
        throw error;
      })
    : null;
  if (!detail) {
    // Not a case ID: perhaps an operation ID, which people copy from their own systems.
    // As it arrived, or (if still percent-encoded) as the producer wrote it.
    let operationId = id;
    let matches = await findCasesByOperation(db(), user, operationId);
    if (matches.length === 0 && decodedSegment(id) !== id) {
      operationId = decodedSegment(id);
      matches = await findCasesByOperation(db(), user, operationId);
    }
    if (matches.length === 0) notFound();
    if (matches.length > 1) return <OperationMatches operationId={operationId} matches={matches} />;
    redirect(`/cases/${matches[0]?.caseId}${typeof from === "string" ? `?from=${encodeURIComponent(from)}` : ""}`);
  }
  // The moment the case was read, for the first render here and in the browser alike (CaseLive).
  const readAt = Date.now();
  const reviewers = can(user.roles, "case:assign") ? await listAssignableUsers(db(), user, detail.producer) : [];
  const duplicates = await listSuspectedDuplicates(db(), user, { caseId: id });
  const sameVideo = await listDuplicateOutputs(db(), user, { caseId: detail.id });
  const settings = await consoleSettings(db());
  const notifications = await caseNotificationLog(db(), user, detail.id);
  // The queue view the case was opened from, re-read as queue parameters only (never a URL of its own).
  const { query } = parseQueueParams(Object.fromEntries(new URLSearchParams(typeof from === "string" ? from : "")));
  const { cursor: _cursor, ...view } = query;
  const viewText = queueQueryString(view);
  const neighbours = await caseNeighbours(db(), user, view, id);
  return (
    <>
      <CaseNavigation viewText={viewText} previous={neighbours.previous} next={neighbours.next} />
      <PausedWork user={user} target={detail} />
      <DuplicateOutputFlags caseId={detail.id} items={sameVideo} />
      {duplicates.length ? (
        <section
          aria-labelledby="suspected-duplicate-heading"
          className="mb-4 rounded border border-amber-600 bg-amber-50 p-4"
        >
          <h2 id="suspected-duplicate-heading" className="font-semibold text-amber-950">
            Suspected duplicate: the original job turned up after its replacement was authorised
          </h2>
          <SuspectedDuplicates items={duplicates} showCase={false} />
        </section>
      ) : null}
      <CaseLive
        initial={detail}
        user={{ id: user.userId, roles: user.roles }}
        reviewers={reviewers}
        assignmentIsOwnership={settings.assignmentIsOwnership}
        readAt={readAt}
      />
      <NotificationLog caseId={detail.id} messages={notifications} user={user} />
      {can(user.roles, "case:export_evidence") ? (
        <nav aria-label="Evidence" className="mt-4 flex justify-end text-sm">
          <EvidenceLinks {...caseEvidenceHrefs(id)} />
        </nav>
      ) : null}
    </>
  );
}

/** The path segment percent-decoded, or as it is when it is no valid encoding. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
