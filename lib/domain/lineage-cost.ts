import type { LedgerEntryKind } from "./holds";

/** What one currency's holds across a case's attempts came to, in integer micro-units. */
export type CurrencyCost = { currency: string; reservedMicros: number; chargedMicros: number; heldMicros: number };

export type LineageHold = { currency: string; entries: ReadonlyArray<{ kind: LedgerEntryKind; amountMicros: number }> };

/**
 * How each ledger entry moves the three figures: reserved (what was put on hold), charged (what the
 * provider's bill took, overages included: DESIGN rule 7) and still held (reserved less settled and
 * released). Keyed by every kind, so a new kind of entry cannot be added without saying what it is.
 */
const EFFECT: Record<LedgerEntryKind, { reserved: number; charged: number; held: number }> = {
  reserve: { reserved: 1, charged: 0, held: 1 },
  settle: { reserved: 0, charged: 1, held: -1 },
  release: { reserved: 0, charged: 0, held: -1 },
  overage: { reserved: 0, charged: 1, held: 0 },
  // DESIGN rule 18: the provider charged after the hold was released: charged, nothing held.
  late_charge: { reserved: 0, charged: 1, held: 0 },
  // Decision 073: the provider's own bill corrects the charge, up or down; nothing held moves.
  adjustment: { reserved: 0, charged: 1, held: 0 },
  // Decision 074: has no hold, so no lineage ever holds one; charged, should one appear.
  outside_charge: { reserved: 0, charged: 1, held: 0 },
};

/**
 * A lineage's cost per currency, read from its ledger: amounts in different currencies are never
 * added together (DESIGN section 10 shows lineage cost; a USD and a JPY hold are two figures).
 * Currencies in alphabetical order.
 */
export function lineageCost(holds: ReadonlyArray<LineageHold>): CurrencyCost[] {
  const byCurrency = new Map<string, CurrencyCost>();
  for (const hold of holds) {
    const cost = byCurrency.get(hold.currency) ?? {
      currency: hold.currency,
      reservedMicros: 0,
      chargedMicros: 0,
      heldMicros: 0,
    };
    for (const entry of hold.entries) {
      const effect = EFFECT[entry.kind];
      cost.reservedMicros += effect.reserved * entry.amountMicros;
      cost.chargedMicros += effect.charged * entry.amountMicros;
      cost.heldMicros += effect.held * entry.amountMicros;
    }
    byCurrency.set(hold.currency, cost);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
