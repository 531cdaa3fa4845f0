import { count, type Figure, type OpRecord, opKey, type World } from "./world";

type PermitRow = {
  producer: string;
  operationId: string;
  token: number;
  status: string;
  parked: boolean;
  holdStatus: string;
  amount: string;
  settled: string;
  released: string;
  /** The hold was released (or written off) and the completion then booked a charge after release. */
  lateCharged: boolean;
};

type Report = (key: string, figure: Figure, operation: number | null, detail: string) => void;

/**
 * The send permits after the run, against what the shops did: no operation's shops made more
 * create calls than it was issued permits (0 blind resends); no permit is left live, nor accepted
 * with neither a completion nor a case; a shop that died after its send ends parked (uncertain, or
 * with the job attached by the provider's webhook) or settled by the provider's word; and the
 * money of permits that never became cases is accounted for: settled when the job completed (or
 * charged after release when finance let it go first), released by finance when the provider
 * refused the send.
 */
export async function checkPermits(world: World, report: Report): Promise<void> {
  const { rows } = await world.sql.query<PermitRow>(`
    SELECT o.producer, o.operation_id AS "operationId", p.token, p.status::text AS status,
           p.case_ref IS NOT NULL AS parked, h.status::text AS "holdStatus", h.amount_micros::text AS amount,
           h.settled_micros::text AS settled, h.released_micros::text AS released,
           h.late_charged_at IS NOT NULL AS "lateCharged"
    FROM send_permits p JOIN operations o ON o.id = p.operation_ref JOIN holds h ON h.id = p.hold_ref
    ORDER BY o.producer, o.operation_id, p.token`);
  const byOperation = new Map<string, PermitRow[]>();
  for (const row of rows) {
    const key = opKey(row.producer, row.operationId);
    byOperation.set(key, [...(byOperation.get(key) ?? []), row]);
  }
  world.ops.forEach((op, index) => {
    if (!op.plan.permit) return;
    const shop = world.producers[op.plan.producer]?.principal.name ?? "";
    const permits = byOperation.get(opKey(shop, op.plan.operationId)) ?? [];
    checkOperation(op, index, permits, report);
    const first = permits.find((permit) => permit.token === 1);
    if (op.crashedAfterSend && first) count(world, `sends whose shop died: ended ${ending(first)}`);
  });
  await countWhoSpoke(world);
}

function ending(permit: PermitRow): string {
  if (!permit.parked) return `${permit.status}, with no case`;
  return permit.status === "uncertain" ? "parked as uncertain" : `parked (${permit.status})`;
}

/** What the providers' webhooks and the permit sweeps did to cases, by event. */
async function countWhoSpoke(world: World): Promise<void> {
  const { rows } = await world.sql.query<{ what: string; n: number }>(`
    SELECT CASE WHEN actor_label LIKE '%webhook (signature verified)' THEN 'provider webhook: ' || kind
                ELSE 'permit sweep: ' || coalesce(evidence->>'source', kind) END AS what, count(*)::int AS n
    FROM audit_events
    WHERE actor_label LIKE '%webhook (signature verified)'
       OR (kind = 'parked' AND evidence->>'source' IN ('send permit deadline', 'send permit silence'))
    GROUP BY 1 ORDER BY 1`);
  for (const row of rows) count(world, row.what, row.n);
}

function checkOperation(op: OpRecord, index: number, permits: PermitRow[], report: Report): void {
  const at = (what: string) => `${what}:${index}`;
  if (op.permitSends > permits.length) {
    report(at("resend"), "blindResends", index, `${op.permitSends} create calls under ${permits.length} permits`);
  }
  if (permits.length === 0) report(at("nopermit"), "lostOrStuck", index, "the shop was never issued a permit");
  for (const permit of permits) {
    const where = `permit ${permit.token} (${permit.status})`;
    if (permit.status === "live")
      report(at(`live${permit.token}`), "lostSends", index, `${where} still live after the run`);
    if (permit.status === "accepted" && !permit.parked) {
      report(at(`silent${permit.token}`), "lostSends", index, `${where}: neither completed nor parked after the run`);
    }
    if (!permit.parked) checkCaselessHold(permit, where, index, at, report);
  }
  const crashed = permits.find((permit) => permit.token === 1);
  if (op.crashedAfterSend && crashed && !crashed.parked && crashed.status !== "completed") {
    report(at("crash"), "lostSends", index, `the shop died after its send and ${crashed.status} permit 1 never parked`);
  }
}

function checkCaselessHold(
  permit: PermitRow,
  where: string,
  index: number,
  at: (what: string) => string,
  report: Report,
): void {
  const amount = BigInt(permit.amount);
  const held = permit.holdStatus === "held" ? amount : 0n;
  if (held + BigInt(permit.settled) + BigInt(permit.released) !== amount) {
    report(at(`balance${permit.token}`), "holdImbalances", index, `${where}: its hold does not add up`);
  }
  // DESIGN rule 18: a completed job's hold is settled, or was released first and charged after release.
  if (permit.status === "completed" && permit.holdStatus !== "settled" && !permit.lateCharged) {
    report(
      at(`settle${permit.token}`),
      "holdImbalances",
      index,
      `${where}: the completed job's hold is ${permit.holdStatus}`,
    );
  }
  if (permit.status === "rejected" && permit.holdStatus === "held") {
    report(
      at(`refused${permit.token}`),
      "lostOrStuck",
      index,
      `${where}: finance never decided the refused send's hold`,
    );
  }
}
