import type { Db } from "@/lib/db/client";
import type { ProducerFilter } from "@/lib/db/stat-figures";
import { microsToAmount } from "@/lib/domain/money";
import type { Principal } from "@/lib/domain/principal";
import { type ExportQuery, exportWindow } from "@/lib/validation/finance";
import { producersOf } from "@/lib/validation/producer-filter";
import { requirePermission, visibleProducers } from "../access/actor";
import { type Cell, readInBatches, toCsv } from "./export-ledger-csv";

// A row reads by its operation and producer; `hold_ref` comes last, for programs: the hold's id in
// the API (/api/v1/holds/{id}/...) and the key joining a ledger row to its hold's row.
const HOLD_HEADER = (
  "operation_id producer hold_id provider model status currency amount_micros amount " +
  "settled_micros settled released_micros released overage_micros overage late_charge_micros late_charge " +
  "written_off created_at resolved_at decision_note hold_ref"
).split(" ");
const LEDGER_HEADER = (
  "created_at operation_id producer hold_id kind flagged currency amount_micros amount " +
  "provider model actor note hold_ref"
).split(" ");

/** Every hold has an attempt of an operation; a permit's hold has no case until it parks. */
const operationColumns = {
  select: { operation: { select: { operationId: true, provider: true, model: true } } },
} as const;
const order = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/**
 * Integer micro-units, then the same amount as a plain exact decimal (9.60, no symbol), so a
 * spreadsheet sums either column; the currency has a column of its own.
 */
const money = (micros: bigint, currency: string): Cell[] => [Number(micros), microsToAmount(micros, currency)];

/** A hold's flagged entry of one kind (at most one each, by the ledger's (hold, kind) key). */
const flaggedMicros = (entries: { kind: string; amountMicros: bigint }[], kind: string) =>
  entries.find((e) => e.kind === kind)?.amountMicros ?? 0n;

function holdRows(db: Db, range: { gte: Date; lt: Date }, producers: ProducerFilter) {
  return readInBatches(
    (after, take) =>
      db.hold.findMany({
        where: { AND: [{ createdAt: range }, after, producers ? { producer: { in: [...producers] } } : {}] },
        orderBy: order,
        take,
        include: {
          attempt: operationColumns,
          entries: { where: { kind: { in: ["overage", "late_charge"] } }, select: { kind: true, amountMicros: true } },
        },
      }),
    (h) => [
      ...[h.attempt.operation.operationId, h.producer, h.holdId],
      ...[h.attempt.operation.provider, h.attempt.operation.model, h.status],
      h.currency,
      ...money(h.amountMicros, h.currency),
      ...money(h.settledMicros, h.currency),
      ...money(h.releasedMicros, h.currency),
      ...money(flaggedMicros(h.entries, "overage"), h.currency),
      ...money(flaggedMicros(h.entries, "late_charge"), h.currency),
      h.writtenOff ? "true" : "false",
      ...[h.createdAt.toISOString(), h.resolvedAt?.toISOString() ?? null, h.decisionNote, h.id],
    ],
  );
}

function ledgerRows(db: Db, range: { gte: Date; lt: Date }, producers: ProducerFilter) {
  return readInBatches(
    (after, take) =>
      db.ledgerEntry.findMany({
        where: { AND: [{ createdAt: range }, after, producers ? { hold: { producer: { in: [...producers] } } } : {}] },
        orderBy: order,
        take,
        include: {
          hold: { select: { holdId: true, producer: true, currency: true, attempt: operationColumns } },
        },
      }),
    (e) => {
      // A charge made outside the product has no hold or operation: its own provider and currency
      // (decision 074); a person limited to some producers never reads one (the hold filter above).
      const currency = e.hold?.currency ?? e.currency ?? "";
      const operation = e.hold?.attempt.operation;
      return [
        ...[
          e.createdAt.toISOString(),
          operation?.operationId ?? null,
          e.hold?.producer ?? null,
          e.hold?.holdId ?? null,
        ],
        ...[e.kind, e.flagged ? "true" : "false", currency],
        ...money(e.amountMicros, currency),
        ...[operation?.provider ?? e.provider, operation?.model ?? null, e.actorLabel, e.note, e.holdRef],
      ];
    },
  );
}

/**
 * Holds reserved, or ledger entries booked, within whole UTC days `from`..`to` (both included),
 * as CSV with formula-like text neutralised; of one producer's holds only when `producer` is given.
 */
export async function exportFinanceCsv(db: Db, actor: Principal, query: ExportQuery) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, producersOf(query.producer));
  const { start, end } = exportWindow(query);
  const range = { gte: start, lt: end };
  const rows = query.kind === "holds" ? await holdRows(db, range, producers) : await ledgerRows(db, range, producers);
  const body = toCsv(query.kind === "holds" ? HOLD_HEADER : LEDGER_HEADER, rows);
  return { filename: `${query.kind}-${query.from}-to-${query.to}.csv`, body, rowCount: rows.length };
}
