import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";

/** What a reservation writes: the hold, and its `reserve` entry for the same amount. */
export type Reservation = {
  holdId: string;
  producer: string;
  attemptRef: string;
  amountMicros: bigint;
  currency: string;
  /** Null while the hold belongs to a send permit that has not parked (it joins the case then). */
  caseId: string | null;
  actorLabel: string;
};

/**
 * A hold and its `reserve` entry, inside the transaction that makes the attempt they pay for
 * (DESIGN rule 7: every reserved micro-unit is in the ledger from the moment it is held).
 */
export async function reserve(
  tx: Db,
  input: Reservation,
): Promise<{ id: string; holdId: string; amountMicros: bigint; currency: string }> {
  const hold = await tx.hold.create({
    data: {
      holdId: input.holdId,
      producer: input.producer,
      caseId: input.caseId,
      attemptRef: input.attemptRef,
      amountMicros: input.amountMicros,
      currency: input.currency,
    },
    select: { id: true, holdId: true, amountMicros: true, currency: true },
  });
  await tx.ledgerEntry.create({
    data: { holdRef: hold.id, kind: "reserve", amountMicros: hold.amountMicros, actorLabel: input.actorLabel },
  });
  return hold;
}

/**
 * The same reservation as two CTEs for a hot path's single statement: `hold` (returning `id` and
 * `attempt_ref`) inserts one hold for each row of `source`, and `reserve` its entry. The attempt and
 * the case are expressions over `s` (the source row); `at` stamps both rows, so the figures the
 * triggers bucket by hour agree with the statement's other rows.
 */
export function reserveCtes(input: {
  source: Prisma.Sql;
  attemptRef: Prisma.Sql;
  caseId?: Prisma.Sql;
  holdId: string;
  producer: string;
  amountMicros: bigint;
  currency: string;
  actorLabel: string;
  at?: Prisma.Sql;
}): Prisma.Sql {
  const at = input.at ?? Prisma.sql`now()`;
  return Prisma.sql`hold AS (
      INSERT INTO holds (hold_id, producer, case_id, attempt_ref, amount_micros, currency, created_at)
      SELECT ${input.holdId}, ${input.producer}, ${input.caseId ?? Prisma.sql`NULL::uuid`}, ${input.attemptRef},
             ${input.amountMicros}, ${input.currency}, ${at}
      FROM ${input.source} s
      RETURNING id, attempt_ref
    ), reserve AS (
      INSERT INTO ledger_entries (hold_ref, kind, amount_micros, actor_label, created_at)
      SELECT id, 'reserve', ${input.amountMicros}, ${input.actorLabel}, ${at} FROM hold
    )`;
}
