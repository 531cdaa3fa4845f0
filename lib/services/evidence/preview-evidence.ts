import type { Db } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import type { EvidencePacket, PacketScope } from "@/lib/evidence/packet";
import type { EvidenceFilter } from "@/lib/validation/evidence";
import { requirePermission } from "../access/actor";
import type { SigningSettings } from "./deployment-key";
import { caseSelection, filterSelection, type PacketCases, readPacketCases } from "./export-evidence";

/**
 * What one case's packet would hold, for the printable page: read, never signed nor audited, since
 * looking is not an export (decision 057); its download is the export.
 */
export async function previewCaseEvidence(
  db: Db,
  actor: Principal,
  caseId: string,
  settings: SigningSettings,
  now = new Date(),
) {
  requirePermission(actor, "case:export_evidence");
  return readingOf(actor, await readPacketCases(db, actor, caseSelection(caseId), settings), now);
}

/** What a queue view's packet would hold, for the printable page: read, never signed nor audited (decision 057). */
export async function previewFilterEvidence(
  db: Db,
  actor: Principal,
  filter: EvidenceFilter,
  settings: SigningSettings,
  now = new Date(),
) {
  requirePermission(actor, "case:export_evidence");
  const selection = await filterSelection(db, actor, filter, now);
  return readingOf(actor, await readPacketCases(db, actor, selection, settings), now);
}

/** The printable page's reading: the packet's contents and the key its download will be signed with. */
export type EvidenceReading = {
  readAt: string;
  readBy: string;
  demo: boolean;
  scope: PacketScope;
  cases: EvidencePacket["cases"];
  signer: { keyId: string; publicKey: string; demo: boolean };
};

function readingOf(actor: Principal, read: PacketCases, now: Date): EvidenceReading {
  const { key, scope, cases } = read;
  return {
    readAt: now.toISOString(),
    readBy: actorColumns(actor).actorLabel,
    demo: read.demo,
    scope,
    cases,
    signer: { keyId: key.keyId, publicKey: key.publicKeyPem, demo: key.demo },
  };
}
