import type pg from "pg";
import {
  type ChainedEvent,
  chainKeyOf,
  chainOwnerOf,
  eventHash,
  GENESIS_HEX,
  isRedactedJson,
  REDACTED_LABEL,
  textDigest,
} from "./canonical";
import { type Marker, RedactionLedger, type StateMark } from "./redaction-check";

export type ChainProblem =
  | "edited_content"
  | "missing_event"
  | "broken_link"
  | "head_mismatch"
  /** A redaction marker no justified retention redaction covers (decision 052). */
  | "unjustified_redaction";

/** The first broken link of one chain. */
export type BrokenLink = {
  chain: string;
  caseId: string | null;
  /** The operation whose own chain it is (its events before it had a case, decision 059). */
  operationRef: string | null;
  seq: number;
  /** The event at (or, for a missing event, right after) the break; null when none is left. */
  eventId: string | null;
  problem: ChainProblem;
  detail: string;
};

export type ChainReport = {
  chains: number;
  events: number;
  /** Free-text fields replaced by a redaction marker whose recorded digest still stands. */
  redactedFields: number;
  brokenChains: number;
  /** The first break of each broken chain, in chain order, at most `maxReported`. */
  broken: BrokenLink[];
};

export type VerifyOptions = {
  batchSize?: number;
  maxReported?: number;
  onProgress?: (events: number) => void;
};

// Every value is rendered here, by built-in casts, for the hash to be recomputed in TypeScript:
// nothing stored in the database (a function an owner could replace) takes part in the check.
export const AUDIT_WALK_SQL = `
  SELECT id::text AS id, case_id::text AS case_id, operation_ref::text AS operation_ref, chain_seq, encode(prev_hash, 'hex') AS prev_hash,
         encode(hash, 'hex') AS hash, episode, actor_kind::text AS actor_kind, actor_id, actor_label,
         encode(actor_label_digest, 'hex') AS actor_label_digest, kind,
         "before"::text AS before, "after"::text AS after, evidence::text AS evidence,
         encode(before_digest, 'hex') AS before_digest, encode(after_digest, 'hex') AS after_digest,
         encode(evidence_digest, 'hex') AS evidence_digest,
         (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_us
  FROM audit_events
  ORDER BY case_id NULLS LAST, operation_ref NULLS LAST, chain_seq`;
// "C" ordering of the text keys is the walk's: the cases' UUIDs in byte order, then "operation:<uuid>"
// in the operations' byte order, then "system".
const HEADS_SQL = `SELECT chain_key, seq, encode(hash, 'hex') AS hash FROM audit_chain_heads ORDER BY chain_key COLLATE "C"`;

type EventRow = {
  id: string;
  case_id: string | null;
  operation_ref: string | null;
  chain_seq: number;
  prev_hash: string;
  hash: string;
  episode: number | null;
  actor_kind: string;
  actor_id: string | null;
  actor_label: string;
  actor_label_digest: string;
  kind: string;
  before: string | null;
  after: string | null;
  evidence: string | null;
  before_digest: string | null;
  after_digest: string | null;
  evidence_digest: string | null;
  created_at_us: string;
};
type HeadRow = { chain_key: string; seq: number; hash: string };

/** Reads a server-side cursor in batches, so memory stays flat however long the table is. */
class CursorReader<Row> {
  private buffer: Row[] = [];
  private index = 0;
  private done = false;
  constructor(
    private readonly client: pg.Client,
    private readonly name: string,
    private readonly batchSize: number,
  ) {}

  async peek(): Promise<Row | undefined> {
    if (this.index >= this.buffer.length && !this.done) {
      this.buffer = (
        await this.client.query<Row & pg.QueryResultRow>(`FETCH ${this.batchSize} FROM ${this.name}`)
      ).rows;
      this.index = 0;
      if (this.buffer.length < this.batchSize) this.done = true;
    }
    return this.buffer[this.index];
  }

  async next(): Promise<Row | undefined> {
    const row = await this.peek();
    if (row !== undefined) this.index++;
    return row;
  }
}

type Field = { name: string; text: string | null; digest: string | null; redacted: (text: string) => boolean };

/** Which free-text field no longer matches its digest (redaction markers excepted), if any. */
function editedField(row: EventRow): { field?: string; redacted: number; markers: Marker[] } {
  const fields: Field[] = [
    {
      name: "actor_label",
      text: row.actor_label,
      digest: row.actor_label_digest,
      redacted: (t) => t === REDACTED_LABEL,
    },
    { name: "before", text: row.before, digest: row.before_digest, redacted: isRedactedJson },
    { name: "after", text: row.after, digest: row.after_digest, redacted: isRedactedJson },
    { name: "evidence", text: row.evidence, digest: row.evidence_digest, redacted: isRedactedJson },
  ];
  const markers: Marker[] = [];
  for (const field of fields) {
    const actual = textDigest(field.text);
    if (actual === null && field.digest === null) continue;
    if (actual !== null && actual === field.digest) continue;
    if (field.text !== null && field.digest !== null && field.redacted(field.text)) {
      markers.push({ field: field.name, reason: markerReason(field.text) });
      continue;
    }
    return { field: field.name, redacted: markers.length, markers };
  }
  return { redacted: markers.length, markers };
}

function markerReason(text: string): string | null {
  if (!isRedactedJson(text)) return null;
  return (JSON.parse(text) as { $redacted: string }).$redacted;
}

/** The state a case event records, when its `after` is a case snapshot (stage and state). */
function stateOf(row: EventRow): string | null {
  if (row.case_id === null || row.after === null || !row.after.includes('"state"')) return null;
  try {
    const after = JSON.parse(row.after) as { stage?: unknown; state?: unknown } | null;
    return after && typeof after.state === "string" && after.stage !== undefined ? after.state : null;
  } catch {
    return null;
  }
}

function asChained(row: EventRow): ChainedEvent {
  return {
    id: row.id,
    caseId: row.case_id,
    operationRef: row.operation_ref,
    seq: row.chain_seq,
    prevHash: row.prev_hash,
    episode: row.episode,
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    actorLabelDigest: row.actor_label_digest,
    kind: row.kind,
    beforeDigest: row.before_digest,
    afterDigest: row.after_digest,
    evidenceDigest: row.evidence_digest,
    createdAtMicros: row.created_at_us,
  };
}

type ChainState = {
  key: string;
  caseId: string | null;
  operationRef: string | null;
  lastSeq: number;
  lastHash: string;
  broken: boolean;
  /** State-bearing events and redaction markers, judged when the chain ends (decision 052). */
  states: StateMark[];
  markers: Array<{ seq: number; eventId: string; after: string | null; marker: Marker }>;
};

/**
 * Walks every chain in order, in one read-only snapshot (events and heads agree however busy the
 * database is), recomputing each event's hash from its content, and reports each broken chain's
 * first broken link: content that differs from its hash or digests, a gap in the sequence, a
 * predecessor hash that is not the previous event's, or a head that disagrees with the chain.
 */
export async function verifyAuditChains(client: pg.Client, options: VerifyOptions = {}): Promise<ChainReport> {
  const batchSize = options.batchSize ?? 5_000;
  const maxReported = options.maxReported ?? 100;
  const report: ChainReport = { chains: 0, events: 0, redactedFields: 0, brokenChains: 0, broken: [] };
  const fail = (chain: ChainState | null, link: BrokenLink) => {
    if (chain) chain.broken = true;
    report.brokenChains++;
    if (report.broken.length < maxReported) report.broken.push(link);
  };

  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    await client.query("SET LOCAL search_path = pg_catalog, public");
    const redactions = await RedactionLedger.load(client);
    await client.query(`DECLARE audit_chain_events NO SCROLL CURSOR FOR ${AUDIT_WALK_SQL}`);
    await client.query(`DECLARE audit_chain_heads_read NO SCROLL CURSOR FOR ${HEADS_SQL}`);
    const events = new CursorReader<EventRow>(client, "audit_chain_events", batchSize);
    const heads = new CursorReader<HeadRow>(client, "audit_chain_heads_read", batchSize);

    // Heads sorted before `key` whose chains have no event left at all.
    const headsWithoutEvents = async (key: string | null) => {
      for (let head = await heads.peek(); head && (key === null || head.chain_key < key); head = await heads.peek()) {
        await heads.next();
        report.chains++;
        fail(null, {
          chain: head.chain_key,
          ...chainOwnerOf(head.chain_key),
          seq: 1,
          eventId: null,
          problem: "missing_event",
          detail: `the chain's head records ${head.seq} event(s) but none is left`,
        });
      }
    };

    const finish = async (chain: ChainState) => {
      await headsWithoutEvents(chain.key);
      const head = (await heads.peek())?.chain_key === chain.key ? await heads.next() : undefined;
      if (chain.broken) return;
      for (const found of chain.markers) {
        const owner = { caseId: chain.caseId, operationRef: chain.operationRef };
        const why = redactions.unjustified({ ...owner, states: chain.states, ...found });
        if (why === null) continue;
        const link = { chain: chain.key, ...owner, seq: found.seq, eventId: found.eventId };
        fail(chain, { ...link, problem: "unjustified_redaction", detail: why });
        return;
      }
      const at = { chain: chain.key, caseId: chain.caseId, operationRef: chain.operationRef, eventId: null };
      if (!head) {
        fail(chain, { ...at, seq: chain.lastSeq, problem: "head_mismatch", detail: "the chain has no head row" });
      } else if (head.seq > chain.lastSeq) {
        fail(chain, {
          ...at,
          seq: chain.lastSeq + 1,
          problem: "missing_event",
          detail: `the chain's head records ${head.seq} event(s) but the last one left is seq ${chain.lastSeq}`,
        });
      } else if (head.seq !== chain.lastSeq || head.hash !== chain.lastHash) {
        fail(chain, {
          ...at,
          seq: chain.lastSeq,
          problem: "head_mismatch",
          detail: `the chain's head (seq ${head.seq}) is not its last event (seq ${chain.lastSeq}) and that event's hash`,
        });
      }
    };

    let chain = null as ChainState | null;
    for (let row = await events.next(); row; row = await events.next()) {
      const key = chainKeyOf(row.case_id, row.operation_ref);
      if (chain?.key !== key) {
        if (chain) await finish(chain);
        const owner = { caseId: row.case_id, operationRef: row.operation_ref };
        chain = { key, ...owner, lastSeq: 0, lastHash: GENESIS_HEX, broken: false, states: [], markers: [] };
        report.chains++;
      }
      report.events++;
      if (options.onProgress && report.events % 100_000 === 0) options.onProgress(report.events);
      if (chain.broken) continue;
      const at = {
        chain: key,
        caseId: row.case_id,
        operationRef: row.operation_ref,
        seq: row.chain_seq,
        eventId: row.id,
      };
      const expected = chain.lastSeq + 1;
      if (row.chain_seq !== expected) {
        fail(chain, {
          ...at,
          seq: expected,
          problem: "missing_event",
          detail:
            row.chain_seq > expected
              ? `seq ${expected}${row.chain_seq - 1 > expected ? `-${row.chain_seq - 1}` : ""} missing; the next event left is seq ${row.chain_seq} (event ${row.id})`
              : `seq ${row.chain_seq} appears again after seq ${chain.lastSeq}`,
        });
        continue;
      }
      const edited = editedField(row);
      report.redactedFields += edited.redacted;
      if (edited.field) {
        fail(chain, { ...at, problem: "edited_content", detail: `${edited.field} differs from its recorded digest` });
        continue;
      }
      if (eventHash(asChained(row)) !== row.hash) {
        fail(chain, { ...at, problem: "edited_content", detail: "the event's fields do not match its hash" });
        continue;
      }
      if (row.prev_hash !== chain.lastHash) {
        fail(chain, {
          ...at,
          problem: "broken_link",
          detail:
            expected === 1
              ? "the first event's predecessor hash is not the chain's starting value"
              : `its predecessor hash is not the hash of seq ${chain.lastSeq}`,
        });
        continue;
      }
      chain.lastSeq = row.chain_seq;
      chain.lastHash = row.hash;
      const state = stateOf(row);
      if (state !== null) chain.states.push({ seq: row.chain_seq, state });
      for (const marker of edited.markers)
        chain.markers.push({ seq: row.chain_seq, eventId: row.id, after: row.after, marker });
    }
    if (chain) await finish(chain);
    await headsWithoutEvents(null);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
  return report;
}

/** One line per broken chain, for people: where the first broken link is and what is wrong. */
export function describeBrokenLink(link: BrokenLink): string {
  const where = link.caseId
    ? `case ${link.caseId}`
    : link.operationRef
      ? `operation ${link.operationRef} (before its case)`
      : "system chain";
  const event = link.eventId ? ` (event ${link.eventId})` : "";
  return `${where}, seq ${link.seq}${event}: ${link.problem.replace("_", " ")}: ${link.detail}`;
}
