import { type ChainedEvent, eventHash, GENESIS_HEX } from "@/lib/audit/canonical";
import type { EvidencePacket, TimelineEvent } from "./packet";

export type TimelineCheck = { events: number; intact: boolean; problems: string[] };

/** The event as the chain's canonical content reads it (audit-chain-v1, decision 015). */
export function chained(caseId: string, event: TimelineEvent): ChainedEvent {
  return {
    id: event.id,
    caseId,
    operationRef: null,
    seq: event.seq,
    prevHash: event.prevHash,
    episode: event.episode,
    actorKind: event.actorKind,
    actorId: event.actorId,
    actorLabelDigest: event.actorLabelSha256,
    kind: event.kind,
    beforeDigest: event.beforeSha256,
    afterDigest: event.afterSha256,
    evidenceDigest: event.evidenceSha256,
    createdAtMicros: event.atMicros,
  };
}

/**
 * Recomputes every timeline event's chain hash from the fields it carries, and checks that each
 * event names its predecessor's hash (the genesis value for seq 1) and that the last is the head.
 * Independent of the packet's signature: it shows the timeline is the deployment's audit chain as
 * recorded, which the deployment's own `npm run audit:verify` checks against the database.
 */
export function checkTimelineChains(packet: Pick<EvidencePacket, "cases">): TimelineCheck {
  const problems: string[] = [];
  let events = 0;
  for (const item of packet.cases) {
    const caseId = item.case.id;
    const { events: list, head, complete } = item.timeline;
    let previous: TimelineEvent | null = null;
    for (const event of list) {
      events++;
      if (eventHash(chained(caseId, event)) !== event.hash) {
        problems.push(`case ${caseId}, seq ${event.seq}: the event's fields do not match its hash`);
      }
      const expectedPrev = previous ? previous.hash : event.seq === 1 ? GENESIS_HEX : null;
      if (previous && event.seq !== previous.seq + 1) {
        problems.push(`case ${caseId}: seq ${event.seq} follows seq ${previous.seq}`);
      } else if (expectedPrev !== null && event.prevHash !== expectedPrev) {
        problems.push(`case ${caseId}, seq ${event.seq}: its predecessor hash is not the previous event's`);
      }
      if (complete && previous === null && event.seq !== 1) {
        problems.push(`case ${caseId}: a complete timeline starts at seq ${event.seq}`);
      }
      previous = event;
    }
    const last = list.at(-1);
    if (head && (!last || last.seq !== head.seq || last.hash !== head.hash)) {
      problems.push(`case ${caseId}: the last event is not the chain's head`);
    }
  }
  return { events, intact: problems.length === 0, problems };
}
