import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PacketDownloadLink } from "@/components/evidence/evidence-links";
import { EvidencePacketView } from "@/components/evidence/evidence-packet-view";
import { refuseCrossSitePage } from "@/lib/auth/refuse-cross-site-page";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { exportCaseEvidence } from "@/lib/services/evidence/export-evidence";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evidence packet" };

/**
 * The printable reading of a case's evidence packet; showing it is an export, audited like the JSON,
 * and its download is that same packet's file (one packet, one audit event).
 */
export default async function EvidencePacketPage({ params }: { params: Promise<{ id: string }> }) {
  // Showing it is an export, audited: never for a link followed from another site.
  await refuseCrossSitePage();
  const user = await requirePageUser("case:export_evidence");
  const { id } = await params;
  if (!/^[0-9a-f-]{36}$/i.test(id)) notFound();
  const issued = await exportCaseEvidence(db(), user, id, env()).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  return (
    <>
      <nav aria-label="Evidence packet" className="mb-4 flex flex-wrap gap-4 text-sm print:hidden">
        <a href={`/cases/${id}`} className="text-brand underline">
          ← Back to the case
        </a>
        <PacketDownloadLink text={issued.text} filename={issued.filename} />
        <span className="text-slate-700">Print this page with your browser's Print command.</span>
      </nav>
      <EvidencePacketView document={issued.document} sha256={issued.sha256} />
    </>
  );
}
