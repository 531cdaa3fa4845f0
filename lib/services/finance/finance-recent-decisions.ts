import type { Db } from "@/lib/db/client";
import type { ProducerFilter } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission, visibleProducers } from "../access/actor";
import { HOLD_OPERATION } from "../hold/hold-heading";

export const RECENT_DECISIONS = 20;

export type RecentDecisionKind =
  | "settled"
  | "released"
  | "written_off"
  | "late_charge_acknowledged"
  | "replacement_authorized"
  | "replacement_declined";

export type RecentDecision = {
  key: string;
  kind: RecentDecisionKind;
  operationId: string;
  producer: string;
  holdId: string | null;
  currency: string;
  /** What the decision moved: charged for a settle, released for a release, held for a replacement. */
  amountMicros: number;
  /** The part of a settled hold released back to budget, when any. */
  releasedMicros: number;
  decidedBy: string | null;
  decidedAt: string;
};

/**
 * The last decisions people in finance took on money, newest first, of the producers asked for
 * within the reader's own (decision 035): holds settled, released or written off, charges after
 * release decided, and replacements authorised or declined. Read from the rows the decisions
 * wrote (holds, replacement requests), so a list and the totals above it cannot disagree. Holds
 * settled on the provider's word (no person decided them) are not finance's decisions.
 */
export async function listRecentDecisions(
  db: Db,
  actor: Principal,
  producers: ProducerFilter = null,
  limit = RECENT_DECISIONS,
): Promise<RecentDecision[]> {
  requirePermission(actor, "hold:read");
  const scope = visibleProducers(actor, producers);
  const mine = scope ? { producer: { in: [...scope] } } : {};
  const [resolved, lateCharges, replacements] = await Promise.all([
    db.hold.findMany({
      where: { ...mine, resolvedAt: { not: null }, decidedById: { not: null } },
      orderBy: [{ resolvedAt: "desc" }, { id: "desc" }],
      take: limit,
      include: { attempt: HOLD_OPERATION },
    }),
    db.hold.findMany({
      where: { ...mine, lateChargeDecidedAt: { not: null } },
      orderBy: [{ lateChargeDecidedAt: "desc" }, { id: "desc" }],
      take: limit,
      include: { attempt: HOLD_OPERATION, entries: { where: { kind: "late_charge" }, select: { amountMicros: true } } },
    }),
    db.replacementRequest.findMany({
      where: { status: { in: ["authorized", "declined"] }, decidedAt: { not: null }, ...(scope ? { case: mine } : {}) },
      orderBy: [{ decidedAt: "desc" }, { id: "desc" }],
      take: limit,
      include: { case: { select: { producer: true, operationId: true } } },
    }),
  ]);
  const people = await db.user.findMany({
    where: {
      id: {
        in: [
          ...new Set(
            [
              ...resolved.map((h) => h.decidedById),
              ...lateCharges.map((h) => h.lateChargeDecidedById),
              ...replacements.map((r) => r.decidedById),
            ].filter((id): id is string => id !== null),
          ),
        ],
      },
    },
    select: { id: true, email: true },
  });
  const who = (id: string | null) => people.find((person) => person.id === id)?.email ?? null;
  const decisions: RecentDecision[] = [
    ...resolved.map((hold) => ({
      key: `hold:${hold.id}`,
      kind: (hold.status === "settled"
        ? "settled"
        : hold.writtenOff
          ? "written_off"
          : "released") as RecentDecisionKind,
      operationId: hold.attempt.operation.operationId,
      producer: hold.producer,
      holdId: hold.holdId,
      currency: hold.currency,
      amountMicros: Number(hold.status === "settled" ? hold.settledMicros : hold.releasedMicros),
      releasedMicros: hold.status === "settled" ? Number(hold.releasedMicros) : 0,
      decidedBy: who(hold.decidedById),
      decidedAt: (hold.resolvedAt as Date).toISOString(),
    })),
    ...lateCharges.map((hold) => ({
      key: `late:${hold.id}`,
      kind: "late_charge_acknowledged" as const,
      operationId: hold.attempt.operation.operationId,
      producer: hold.producer,
      holdId: hold.holdId,
      currency: hold.currency,
      amountMicros: Number(hold.entries[0]?.amountMicros ?? 0n),
      releasedMicros: 0,
      decidedBy: who(hold.lateChargeDecidedById),
      decidedAt: (hold.lateChargeDecidedAt as Date).toISOString(),
    })),
    ...replacements.map((request) => ({
      key: `replacement:${request.id}`,
      kind: request.status === "authorized" ? ("replacement_authorized" as const) : ("replacement_declined" as const),
      operationId: request.case.operationId,
      producer: request.case.producer,
      // A replacement's new hold is named by its request's UUID: the operation names it for people.
      holdId: null,
      currency: request.currency,
      amountMicros: Number(request.amountMicros),
      releasedMicros: 0,
      decidedBy: who(request.decidedById),
      decidedAt: (request.decidedAt as Date).toISOString(),
    })),
  ];
  return decisions.sort((a, b) => b.decidedAt.localeCompare(a.decidedAt)).slice(0, limit);
}
