import type { Metadata } from "next";
import { EvidencePacketView } from "@/components/evidence/evidence-packet-view";
import { refuseCrossSitePage } from "@/lib/auth/refuse-cross-site-page";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { previewFilterEvidence } from "@/lib/services/evidence/preview-evidence";
import { evidenceFilterOf, evidenceQueryString } from "@/lib/validation/evidence";
import { parseQueueParams, queueHref } from "@/lib/validation/queue-params";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evidence packet of a queue view" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The printable reading of a queue view's evidence packet. Looking is not an export (decision 057):
 * the page writes nothing, and its download is the API route, which issues the signed packet and
 * records it on each case.
 */
export default async function QueueEvidencePage({ searchParams }: Props) {
  // Whole case files, and the way to an export: never for a link followed from another site.
  await refuseCrossSitePage();
  const user = await requirePageUser("case:export_evidence");
  const { query, problem } = parseQueueParams(await searchParams);
  const { cursor: _cursor, ...view } = query;
  // A view that was not understood is not silently replaced by "all open cases" in a signed packet.
  if (problem) {
    return (
      <p role="alert" className="text-sm text-amber-900">
        {problem.replace("; showing all open cases.", ".")} No packet was made.{" "}
        <a href="/queue" className="text-brand underline">
          Back to the queue
        </a>
      </p>
    );
  }
  const filter = evidenceFilterOf(query);
  const reading = await previewFilterEvidence(db(), user, filter, env());
  return (
    <>
      <nav aria-label="Evidence packet" className="mb-4 flex flex-wrap gap-4 text-sm print:hidden">
        <a href={queueHref(view)} className="text-brand underline">
          ← Back to the queue
        </a>
        <a href={`/api/v1/cases/evidence?${evidenceQueryString(filter)}`} download className="text-brand underline">
          Download signed JSON
        </a>
        <span className="text-slate-700">Print this page with your browser's Print command.</span>
      </nav>
      <EvidencePacketView reading={reading} />
    </>
  );
}
