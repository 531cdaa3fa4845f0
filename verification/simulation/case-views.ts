import type pg from "pg";

export type HoldView = {
  id: string;
  holdId: string;
  attemptRef: string;
  status: "held" | "settled" | "released";
  amount: number;
  settled: number;
  released: number;
  reserveEntries: number;
  settleEntries: number;
  releaseEntries: number;
  /** The hold was decided by a user who has the finance role. */
  decidedByFinance: boolean;
};

/** One case as the auditor and the simulated people see it after a step. */
export type CaseView = {
  id: string;
  producer: string;
  operationId: string;
  provider: string;
  providerJobId: string | null;
  stage: string;
  state: string;
  version: number;
  episode: number;
  attemptRef: string;
  attemptId: string;
  outcome: string | null;
  /** The worker found the provider's outputs gone (the fact the case's decisions read). */
  outputsUnavailable: boolean;
  heldMicros: number;
  liveActions: { id: string; status: string }[];
  holds: HoldView[];
  pendingRequests: { id: string; requestedBy: string }[];
};

export type ViewRow = Omit<CaseView, "heldMicros" | "holds"> & {
  heldMicros: string;
  holds: (Omit<HoldView, "amount" | "settled" | "released" | "reserveEntries" | "settleEntries" | "releaseEntries"> & {
    amount: string;
    settled: string;
    released: string;
    reserveEntries: string;
    settleEntries: string;
    releaseEntries: string;
  })[];
};

const ledger = (kind: string) =>
  `(SELECT coalesce(sum(l.amount_micros), 0)::text FROM ledger_entries l WHERE l.hold_ref = h.id AND l.kind = '${kind}')`;

/** The case views of the cases matching `where` (SQL over `c`), ordered by operation. */
export const viewsSql = (where: string) => `
  SELECT c.id::text AS id, c.producer, c.operation_id AS "operationId", c.provider,
         c.provider_job_id AS "providerJobId", c.stage::text AS stage, c.state::text AS state,
         c.version, c.episode, c.attempt_ref::text AS "attemptRef", c.attempt_id AS "attemptId", c.outcome,
         c.outputs_unavailable_at IS NOT NULL AS "outputsUnavailable", c.held_micros::text AS "heldMicros",
         coalesce((SELECT json_agg(json_build_object('id', a.id, 'status', a.status) ORDER BY a.id)
                   FROM recovery_actions a WHERE a.case_id = c.id AND a.status IN ('ready', 'claimed')), '[]') AS "liveActions",
         coalesce((SELECT json_agg(json_build_object(
                     'id', h.id, 'holdId', h.hold_id, 'attemptRef', h.attempt_ref, 'status', h.status,
                     'amount', h.amount_micros::text, 'settled', h.settled_micros::text, 'released', h.released_micros::text,
                     'reserveEntries', ${ledger("reserve")}, 'settleEntries', ${ledger("settle")},
                     'releaseEntries', ${ledger("release")},
                     'decidedByFinance', coalesce('finance' = ANY(u.roles), false)) ORDER BY h.hold_id)
                   FROM holds h LEFT JOIN users u ON u.id = h.decided_by_id WHERE h.case_id = c.id), '[]') AS holds,
         coalesce((SELECT json_agg(json_build_object('id', r.id, 'requestedBy', r.requested_by_id) ORDER BY r.created_at)
                   FROM replacement_requests r WHERE r.case_id = c.id AND r.status = 'pending'), '[]') AS "pendingRequests"
  FROM cases c WHERE ${where} ORDER BY c.operation_id, c.producer`;

export function toView(row: ViewRow): CaseView {
  return {
    ...row,
    heldMicros: Number(row.heldMicros),
    holds: row.holds.map((h) => ({
      ...h,
      amount: Number(h.amount),
      settled: Number(h.settled),
      released: Number(h.released),
      reserveEntries: Number(h.reserveEntries),
      settleEntries: Number(h.settleEntries),
      releaseEntries: Number(h.releaseEntries),
    })),
  };
}

export async function loadAllCaseViews(sql: pg.Pool): Promise<CaseView[]> {
  const { rows } = await sql.query<ViewRow>(viewsSql("true"));
  return rows.map(toView);
}

export type AuditRow = {
  id: number;
  caseId: string | null;
  episode: number | null;
  kind: string;
  actorKind: string;
  actorLabel: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  evidence: Record<string, unknown> | null;
};

/** The audit events after `lastId`, as JSON (for embedding in a larger statement). */
export const eventsSql = (lastId: string, limit: number) => `
  SELECT id, case_id, episode, kind, actor_kind, actor_label, before, after, evidence
  FROM audit_events WHERE id > ${lastId} ORDER BY id LIMIT ${limit}`;

export const eventsJson = (from: string) => `
  SELECT coalesce(json_agg(json_build_object(
    'id', id, 'caseId', case_id, 'episode', episode, 'kind', kind, 'actorKind', actor_kind,
    'actorLabel', actor_label, 'before', before, 'after', after, 'evidence', evidence) ORDER BY id), '[]')
  FROM ${from}`;
