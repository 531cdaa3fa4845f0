import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import type { HoldResolution, LedgerEntryPlan } from "@/lib/domain/holds";

/**
 * What resolving one hold writes: its status and amounts from the plan (lib/domain/holds.ts), who
 * decided (finance) or nobody (a completion the provider reported), the note, and the plan's ledger
 * entries (settle, release, overage), all with the same actor.
 */
export type Resolution = {
  holdRef: string;
  /** The amount the plan was made on: the compare-and-set checks it with the `held` status. */
  amountMicros: bigint;
  plan: HoldResolution;
  note: string;
  /** The ledger entries' note, when it differs from the hold's. */
  entryNote?: string;
  decidedById?: string | null;
  actorLabel: string;
  /** Finance wrote the hold off: released while the send's outcome was unknown (DESIGN rule 18). */
  writtenOff?: boolean;
};

function amountOf(plan: HoldResolution, kind: "settle" | "release"): bigint {
  return BigInt(plan.entries.find((entry) => entry.kind === kind)?.amountMicros ?? 0);
}

/**
 * A hold resolves exactly once (DESIGN rules 6 and 7): a compare-and-set on `held` and the planned
 * amount, then its entries. Returns false, having written nothing, when the hold was no longer held
 * for that amount; the ledger's (hold, kind) uniqueness refuses a second entry even past that.
 */
export async function resolve(tx: Db, input: Resolution): Promise<boolean> {
  const { count } = await tx.hold.updateMany({
    where: { id: input.holdRef, status: "held", amountMicros: input.amountMicros },
    data: {
      status: input.plan.status,
      settledMicros: amountOf(input.plan, "settle"),
      releasedMicros: amountOf(input.plan, "release"),
      decisionNote: input.note,
      resolvedAt: new Date(),
      ...(input.decidedById ? { decidedById: input.decidedById } : {}),
      ...(input.writtenOff ? { writtenOff: true } : {}),
    },
  });
  if (count === 0) return false;
  await bookEntries(tx, {
    holdRef: input.holdRef,
    entries: input.plan.entries,
    note: input.entryNote ?? input.note,
    actorLabel: input.actorLabel,
  });
  return true;
}

/** Planned ledger entries of one hold, booked with one note and actor, in one statement. */
export async function bookEntries(
  tx: Db,
  input: { holdRef: string; entries: readonly LedgerEntryPlan[]; note: string; actorLabel: string },
): Promise<void> {
  if (input.entries.length === 0) return;
  await tx.ledgerEntry.createMany({
    data: input.entries.map((entry) => ({
      holdRef: input.holdRef,
      kind: entry.kind,
      amountMicros: BigInt(entry.amountMicros),
      flagged: entry.flagged,
      note: input.note,
      actorLabel: input.actorLabel,
    })),
  });
}

/**
 * The same resolution as two CTEs for a hot path's single statement: `settled` (returning `id` and
 * `amount_micros`) locks the hold by its id and sets it only if it is then `held` at the planned
 * amount, joined to `from` and narrowed by `where` (alias `h` for the hold); `entries` books the
 * plan's entries only if it did. A statement that settles nothing still has both, empty.
 */
export function resolvedCtes(
  input: Omit<Resolution, "decidedById" | "plan" | "holdRef" | "amountMicros"> & {
    /** Null (with no plan) when the case has no hold to settle: both CTEs then write nothing. */
    holdRef: string | null;
    amountMicros: bigint | null;
    plan: HoldResolution | null;
    from: Prisma.Sql;
    where: Prisma.Sql;
  },
): Prisma.Sql {
  const plan = input.plan ?? { status: "settled" as const, entries: [] };
  return Prisma.sql`settled AS (
      UPDATE holds h SET status = ${plan.status}::"HoldStatus", settled_micros = ${amountOf(plan, "settle")},
          released_micros = ${amountOf(plan, "release")}, resolved_at = now(), decision_note = ${input.note}
      FROM (
        -- The hold by its id alone, locked, then checked as it is now, so no plan can find it by
        -- walking the partial index of every held hold (decision 081).
        SELECT h.id
        FROM (SELECT * FROM holds WHERE id = ${input.holdRef}::uuid AND ${input.plan !== null} OFFSET 0 FOR UPDATE) h,
          ${input.from}
        WHERE ${input.where} AND h.status = 'held' AND h.amount_micros = ${input.amountMicros ?? 0n}
      ) locked_hold
      WHERE h.id = locked_hold.id
      RETURNING h.id, h.amount_micros
    ), entries AS (
      INSERT INTO ledger_entries (hold_ref, kind, amount_micros, flagged, note, actor_label)
      SELECT settled.id, e.kind::"LedgerEntryKind", e."amountMicros", e.flagged, ${input.entryNote ?? input.note},
             ${input.actorLabel}
      FROM settled CROSS JOIN jsonb_to_recordset(${JSON.stringify(plan.entries)}::jsonb)
        AS e(kind text, "amountMicros" bigint, flagged boolean)
    )`;
}
