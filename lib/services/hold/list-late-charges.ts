import type { Db } from "@/lib/db/client";
import type { ProducerFilter } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { HOLD_OPERATION, holdHeading } from "./hold-heading";

/** Most charges after release one Finance page lists; the figures above it count them all. */
const LIST_LIMIT = 200;

/**
 * DESIGN rule 18: the charges proved after a hold's release that finance has not decided, oldest
 * first, each with what was charged and how the hold had ended (released, or written off).
 */
export async function listOpenLateCharges(db: Db, actor: Principal, requested: ProducerFilter = null) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, requested);
  const rows = await db.hold.findMany({
    where: {
      lateChargedAt: { not: null },
      lateChargeDecidedAt: null,
      ...(producers ? { producer: { in: [...producers] } } : {}),
    },
    orderBy: [{ lateChargedAt: "asc" }, { id: "asc" }],
    take: LIST_LIMIT,
    include: {
      attempt: HOLD_OPERATION,
      entries: { where: { kind: "late_charge" }, select: { amountMicros: true, note: true } },
    },
  });
  return rows.map((hold) => ({
    ...holdHeading(hold),
    currency: hold.currency,
    heldMicros: Number(hold.amountMicros),
    chargedMicros: Number(hold.entries[0]?.amountMicros ?? 0n),
    how: hold.entries[0]?.note ?? null,
    writtenOff: hold.writtenOff,
    releaseNote: hold.decisionNote,
    chargedAt: hold.lateChargedAt?.toISOString() ?? null,
  }));
}

export type LateChargeItem = Awaited<ReturnType<typeof listOpenLateCharges>>[number];
