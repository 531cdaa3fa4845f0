import type pg from "pg";

/**
 * Whether a redaction marker in the chain is one retention's own functions made and its facts
 * justify (decision 052). audit_redact_case and audit_redact_operation record each redaction in
 * `audit_redactions` (owner-kept): which chain, up to which event, the resolution it relied on and
 * the policy's days. An operation's redaction names two positions (decision 059): in the operation's
 * own chain, and in the system chain, where its permit events went before operations had chains. A marker no such row covers, with another reason, on a field retention never
 * redacts, or covered by a row its facts do not justify, is reported as an unjustified redaction.
 */
export type RedactionRow = {
  case_id: string | null;
  producer: string | null;
  operation_id: string | null;
  operation_ref: string | null;
  through_seq: number;
  system_through_seq: number | null;
  resolution_seq: number | null;
  since_ms: string;
  redacted_ms: string;
  days: number;
  logged_days: number | null;
  policy_log_id: string | null;
  reason: string;
};

/** Read in the verifier's snapshot: one row per redacted case or operation. */
export const REDACTIONS_SQL = `
  SELECT r.case_id::text AS case_id, r.producer, r.operation_id, r.operation_ref::text AS operation_ref,
         r.through_seq, r.system_through_seq, r.resolution_seq,
         (extract(epoch FROM r.since_at) * 1000)::bigint::text AS since_ms,
         (extract(epoch FROM r.redacted_at) * 1000)::bigint::text AS redacted_ms,
         r.days, l.days AS logged_days, l.id::text AS policy_log_id, r.reason
    FROM audit_redactions r LEFT JOIN retention_policy_log l ON l.id = r.policy_log_id
   ORDER BY r.id`;

const DAY_MS = 86_400_000;
const opKey = (producer: string, operationId: string) => `${producer}\u0000${operationId}`;

/** A marker found on one event: its field and, for JSON markers, the reason it gives. */
export type Marker = { field: string; reason: string | null };

/** The case chain's state-bearing events, as the walk saw them (seq order). */
export type StateMark = { seq: number; state: string };

export class RedactionLedger {
  private readonly byCase = new Map<string, RedactionRow[]>();
  private readonly byOperation = new Map<string, RedactionRow[]>();
  private readonly byOperationRef = new Map<string, RedactionRow[]>();

  static async load(client: pg.Client): Promise<RedactionLedger> {
    const ledger = new RedactionLedger();
    // Tables from before decision 052 (no such rows): every marker is then unjustified.
    const { rows } = await client.query<RedactionRow>(REDACTIONS_SQL);
    for (const row of rows) {
      if (row.case_id) push(ledger.byCase, row.case_id, row);
      else if (row.producer !== null && row.operation_id !== null)
        push(ledger.byOperation, opKey(row.producer, row.operation_id), row);
      if (!row.case_id && row.operation_ref) push(ledger.byOperationRef, row.operation_ref, row);
    }
    return ledger;
  }

  /** Why the marker is not justified, or null when a recorded, justified redaction covers it. */
  unjustified(input: {
    caseId: string | null;
    operationRef: string | null;
    seq: number;
    marker: Marker;
    after: string | null;
    states: readonly StateMark[];
  }): string | null {
    const { marker } = input;
    if (marker.field !== "evidence" || marker.reason === null)
      return `${marker.field} carries a redaction marker, and retention redacts only evidence`;
    const { rows, through } = this.chainRows(input);
    const covering = (rows ?? []).filter((r) => (through(r) ?? -1) >= input.seq && r.reason === marker.reason);
    if (covering.length === 0)
      return `evidence redacted ("${marker.reason}") with no retention redaction recorded for it`;
    const reasons = covering.map((row) => rowProblem(row, input.caseId ? input.states : null));
    return reasons.includes(null) ? null : `evidence redacted but ${reasons[0]}`;
  }

  /** The redactions recorded on the marker's chain, and each one's position in that chain. */
  private chainRows(input: { caseId: string | null; operationRef: string | null; after: string | null }): {
    rows: RedactionRow[] | undefined;
    through: (row: RedactionRow) => number | null;
  } {
    if (input.caseId) return { rows: this.byCase.get(input.caseId), through: (r) => r.through_seq };
    if (input.operationRef) return { rows: this.byOperationRef.get(input.operationRef), through: (r) => r.through_seq };
    return { rows: this.operationRows(input.after), through: (r) => r.system_through_seq };
  }

  private operationRows(after: string | null): RedactionRow[] | undefined {
    try {
      const named = JSON.parse(after ?? "null") as { producer?: unknown; operationId?: unknown } | null;
      if (typeof named?.producer !== "string" || typeof named.operationId !== "string") return undefined;
      return this.byOperation.get(opKey(named.producer, named.operationId));
    } catch {
      return undefined;
    }
  }
}

function push(map: Map<string, RedactionRow[]>, key: string, row: RedactionRow) {
  const list = map.get(key);
  if (list) list.push(row);
  else map.set(key, [row]);
}

/** What is wrong with a recorded redaction's facts; null when its policy justifies it. */
function rowProblem(row: RedactionRow, states: readonly StateMark[] | null): string | null {
  if (row.policy_log_id === null || row.logged_days !== row.days)
    return `the redaction's ${row.days} days are not the logged policy's`;
  if (Number(row.since_ms) + row.days * DAY_MS > Number(row.redacted_ms))
    return `it was redacted before its ${row.days} days had passed`;
  if (states === null) return null;
  const last = [...states].reverse().find((s) => s.seq <= row.through_seq);
  if (last?.state !== "resolved" || last.seq !== row.resolution_seq)
    return `the case's history did not say resolved at seq ${row.through_seq}`;
  return null;
}
