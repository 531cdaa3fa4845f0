import { createHash, randomUUID } from "node:crypto";
import { recordAuditRows } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { EvidencePacket, Json, PacketScope } from "@/lib/evidence/packet";
import { evidenceText, type SignedEvidence, signPacket } from "@/lib/evidence/packet-signature";
import type { EvidenceFilter } from "@/lib/validation/evidence";
import { requireCaseInScope, requirePermission } from "../access/actor";
import { viewConditions } from "../case/list-cases";
import { narrowEventsOfCase } from "../case/named-cases";
import { deploymentSigningKey, type SigningSettings } from "./deployment-key";
import { readCaseEvidence } from "./read-case-evidence";

/** A filter's packet holds at most this many cases (the oldest first); the packet says when more matched. */
export const FILTER_PACKET_CAP = 200;

export const EVIDENCE_EXPORTED = "evidence_exported";

/** A signed packet and its one text form, which is what a file or a response carries. */
export type IssuedPacket = { document: SignedEvidence; text: string; sha256: string; filename: string };

/** One case's evidence packet, signed with the deployment's key; the export is audited on the case. */
export async function exportCaseEvidence(
  db: Db,
  actor: Principal,
  caseId: string,
  settings: SigningSettings,
  now = new Date(),
) {
  requirePermission(actor, "case:export_evidence");
  return issuePacket(db, actor, caseSelection(caseId), settings, now);
}

export const caseSelection = (caseId: string): Selection => ({
  scope: { kind: "case", caseId },
  caseIds: [caseId],
  name: `evidence-case-${caseId}`,
});

/**
 * The evidence of a queue view's cases (the queue's own filter conditions), the oldest first, up to
 * FILTER_PACKET_CAP; each exported case gets its own audit event.
 */
export async function exportFilterEvidence(
  db: Db,
  actor: Principal,
  filter: EvidenceFilter,
  settings: SigningSettings,
  now = new Date(),
) {
  requirePermission(actor, "case:export_evidence");
  return issuePacket(db, actor, await filterSelection(db, actor, filter, now), settings, now);
}

/** A packet's cases and scope, before anything is read of them. */
export type Selection = { scope: PacketScope; caseIds: string[]; name: string };

export async function filterSelection(db: Db, actor: Principal, filter: EvidenceFilter, now: Date): Promise<Selection> {
  const where = await viewConditions(db, actor, { ...filter, sort: "age", limit: FILTER_PACKET_CAP }, now);
  const rows = await sqlRows<{ id: string }>(
    db,
    Prisma.sql`SELECT id::text AS id FROM cases WHERE ${Prisma.join(where, " AND ")}
               ORDER BY opened_at ASC, id ASC LIMIT ${FILTER_PACKET_CAP + 1}`,
  );
  const scope: PacketScope = {
    kind: "filter",
    filter: JSON.parse(JSON.stringify(filter)) as { [key: string]: Json },
    cap: FILTER_PACKET_CAP,
    truncated: rows.length > FILTER_PACKET_CAP,
  };
  const ids = rows.slice(0, FILTER_PACKET_CAP).map((row) => row.id);
  return { scope, caseIds: ids, name: `evidence-filter-${now.toISOString().slice(0, 10)}` };
}

export type PacketCases = {
  key: ReturnType<typeof deploymentSigningKey>;
  demo: boolean;
  scope: PacketScope;
  cases: EvidencePacket["cases"];
};

/** The cases a packet holds, as `actor` may see them, with the key that signs it. */
export async function readPacketCases(
  db: Db,
  actor: Principal,
  { scope, caseIds }: Selection,
  settings: SigningSettings,
): Promise<PacketCases> {
  // Refused before anything is read when this deployment cannot sign.
  const key = deploymentSigningKey(settings);
  const read = await readCaseEvidence(db, caseIds);
  // The packet's own read is the existence check: an unknown case is refused before anything is written.
  if (scope.kind === "case" && read.length === 0) throw new AppError("not_found", "No such case.");
  // Another producer's case is no case for a person limited to some (decision 035).
  for (const item of read) requireCaseInScope(actor, item.case.producer);
  // Nor are its IDs part of this case's evidence (decision 055): the chain still verifies, since an
  // event's hash covers its evidence's recorded digest, not the text.
  const cases = await Promise.all(
    read.map(async (item) => ({
      ...item,
      timeline: { ...item.timeline, events: await narrowEventsOfCase(db, item.case, item.timeline.events) },
    })),
  );
  return { key, demo: settings.demo, scope, cases };
}

async function issuePacket(
  db: Db,
  actor: Principal,
  selection: Selection,
  settings: SigningSettings,
  now: Date,
): Promise<IssuedPacket> {
  const { key, scope, cases } = await readPacketCases(db, actor, selection, settings);
  const { actorKind, actorId, actorLabel } = actorColumns(actor);
  const packet: EvidencePacket = {
    packetId: randomUUID(),
    exportedAt: now.toISOString(),
    exportedBy: { kind: actorKind, id: actorId, label: actorLabel },
    demo: settings.demo,
    scope,
    cases,
    signer: { keyId: key.keyId, demo: key.demo },
  };
  const document = signPacket(packet, key);
  const text = evidenceText(document);
  const sha256 = createHash("sha256").update(text, "utf8").digest("hex");
  // Recorded before the packet leaves: which packet (its id and the SHA-256 of its file), by whom,
  // for each case in it, so the deployment can later tell a packet it issued from one it did not.
  const evidence = { packetId: packet.packetId, scope: scope.kind, cases: cases.length, keyId: key.keyId, sha256 };
  await recordAuditRows(
    db,
    cases.map((item) => ({
      actor,
      kind: EVIDENCE_EXPORTED,
      caseId: item.case.id,
      episode: item.case.episode,
      evidence,
    })),
  );
  return { document, text, sha256, filename: `${selection.name}-${packet.packetId.slice(0, 8)}.json` };
}

/** What a recipient checks a packet's key against: the deployment's public key and its id. */
export function evidencePublicKey(actor: Principal, settings: SigningSettings) {
  requirePermission(actor, "case:read");
  const key = deploymentSigningKey(settings);
  return { algorithm: "Ed25519", keyId: key.keyId, publicKey: key.publicKeyPem, demo: key.demo };
}
