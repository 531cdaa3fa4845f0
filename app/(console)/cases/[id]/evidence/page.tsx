import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EvidencePacketView } from "@/components/evidence/evidence-packet-view";
import { refuseCrossSitePage } from "@/lib/auth/refuse-cross-site-page";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { previewCaseEvidence } from "@/lib/services/evidence/preview-evidence";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evidence packet" };

/**
 * The printable reading of a case's evidence packet. Looking is not an export (decision 057): the
 * page writes nothing, and its download is the API route, which issues the signed packet and
 * records it on the case.
 */
export default async function EvidencePacketPage({ params }: { params: Promise<{ id: string }> }) {
  // A whole case file, and the way to an export: never for a link followed from another site.
  await refuseCrossSitePage();
  const user = await requirePageUser("case:export_evidence");
  const { id } = await params;
  if (!/^[0-9a-f-]{36}$/i.test(id)) notFound();
  const reading = await previewCaseEvidence(db(), user, id, env()).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  return (
    <>
      <nav aria-label="Evidence packet" className="mb-4 flex flex-wrap gap-4 text-sm print:hidden">
        <a href={`/cases/${id}`} className="text-brand underline">
          ← Back to the case
        </a>
        <a href={`/api/v1/cases/${id}/evidence`} download className="text-brand underline">
          Download signed JSON
        </a>
        <span className="text-slate-700">Print this page with your browser's Print command.</span>
      </nav>
      <EvidencePacketView reading={reading} />
    </>
  );
}
