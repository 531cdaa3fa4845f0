import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { type ProducerFilter, producerIn } from "@/lib/db/stat-figures";
import type { Principal } from "@/lib/domain/principal";
import { completedSend, sendFactsOf, unknownSendOutcome } from "@/lib/domain/send-outcome";
import { AppError } from "@/lib/errors";
import type { ListHoldsQuery } from "@/lib/validation/finance";
import { producersOf } from "@/lib/validation/producer-filter";
import { requirePermission, visibleProducers } from "../access/actor";
import { HOLD_OPERATION, holdHeading } from "./hold-heading";

type Cursor = { v: string; id: string };

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url");

function decode(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    const at = new Date(value.v);
    if (!Number.isNaN(at.getTime()) && /^[0-9a-f-]{36}$/.test(value.id)) return value;
  } catch {}
  throw new AppError("invalid_request", "The page link is not one this console issued.");
}

/**
 * Holds of one status, keyset-paginated: open holds oldest first (they wait longest for a
 * decision), resolved ones most recently decided first. Each row says whether it is exposure.
 * With `operation`, only the holds of operations whose ID is it or starts with it.
 */
export async function listHolds(db: Db, actor: Principal, query: ListHoldsQuery, now = new Date()) {
  requirePermission(actor, "hold:read");
  const producers = visibleProducers(actor, producersOf(query.producer));
  const cursor = decode(query.cursor);
  const needsDecision = query.view === "needs_decision";
  const open = needsDecision || query.status === "held";
  const where: Prisma.HoldWhereInput[] = [{ status: open ? "held" : query.status }];
  if (producers) where.push({ producer: { in: [...producers] } });
  // Prisma hands `startsWith` to LIKE as it is: the ID's own `%`, `_` and `\` are escaped here.
  if (query.operation)
    where.push({ attempt: { operation: { operationId: { startsWith: likeLiteral(query.operation) } } } });
  const decisionPage = needsDecision ? await casesNeedingDecision(db, cursor, query, producers) : null;
  if (decisionPage) where.push({ caseId: { in: decisionPage.caseIds } });
  else if (cursor) {
    const at = new Date(cursor.v);
    where.push(
      open
        ? { OR: [{ createdAt: { gt: at } }, { createdAt: at, id: { gt: cursor.id } }] }
        : { OR: [{ resolvedAt: { lt: at } }, { resolvedAt: at, id: { lt: cursor.id } }] },
    );
  }
  const rows = await db.hold.findMany({
    where: { AND: where },
    orderBy: open ? [{ createdAt: "asc" }, { id: "asc" }] : [{ resolvedAt: "desc" }, { id: "desc" }],
    ...(decisionPage ? {} : { take: query.limit + 1 }),
    include: {
      case: { select: { stage: true, state: true, attemptRef: true } },
      attempt: HOLD_OPERATION,
      permit: { select: { status: true, caseRef: true } },
      entries: {
        where: { kind: { in: ["overage", "settle", "release"] } },
        select: { kind: true, amountMicros: true, actorLabel: true },
      },
    },
  });
  const page = decisionPage ? rows : rows.slice(0, query.limit);
  const deciders = await db.user.findMany({
    where: { id: { in: [...new Set(page.flatMap((h) => (h.decidedById ? [h.decidedById] : [])))] } },
    select: { id: true, email: true },
  });
  const last = page.at(-1);
  const lastAt = open ? last?.createdAt : last?.resolvedAt;
  return {
    items: page.map((hold) => ({
      ...holdHeading(hold),
      // A send permit's hold has no case until the permit parks.
      stage: hold.case?.stage ?? null,
      caseState: hold.case?.state ?? null,
      permitStatus: hold.permit?.status ?? null,
      status: hold.status,
      currency: hold.currency,
      amountMicros: Number(hold.amountMicros),
      settledMicros: Number(hold.settledMicros),
      releasedMicros: Number(hold.releasedMicros),
      overageMicros: Number(hold.entries.find((e) => e.kind === "overage")?.amountMicros ?? 0n),
      decisionNote: hold.decisionNote,
      // A hold nobody in finance decided was settled on the provider's word: by whoever recorded it.
      decidedBy:
        deciders.find((u) => u.id === hold.decidedById)?.email ??
        hold.entries.find((e) => e.kind !== "overage")?.actorLabel ??
        null,
      createdAt: hold.createdAt.toISOString(),
      resolvedAt: hold.resolvedAt?.toISOString() ?? null,
      ageSeconds: Math.max(0, Math.floor((now.getTime() - hold.createdAt.getTime()) / 1000)),
      // DESIGN rule 18: while the provider may still complete the send, finance writes off, never
      // releases; once the job is known completed, finance only settles.
      outcomeUnknown: hold.status === "held" ? unknownSendOutcome(sendFactsOf(hold)) : null,
      completed: hold.status === "held" ? completedSend(sendFactsOf(hold)) : null,
      writtenOff: hold.writtenOff,
      needsDecision: hold.status === "held" && (hold.case?.state === "resolved" || hold.permit?.status === "rejected"),
      exposure:
        open &&
        hold.case?.stage === "submission_uncertain" &&
        hold.case.state !== "resolved" &&
        hold.case.attemptRef === hold.attemptRef,
    })),
    nextCursor: decisionPage
      ? decisionPage.nextCursor
      : rows.length > query.limit && last && lastAt
        ? encode({ v: lastAt.toISOString(), id: last.id })
        : null,
  };
}

/**
 * A page of resolved cases that still hold money, oldest first, read from their own partial index
 * (a handful of a million cases, or a finance backlog of tens of thousands: either way one page of
 * the index), rather than from every held hold, most of which belong to open cases. The page is
 * one of cases, so a case with two open holds (an authorised replacement's) shows both together.
 */
async function casesNeedingDecision(
  db: Db,
  cursor: Cursor | null,
  { limit, operation }: Pick<ListHoldsQuery, "limit" | "operation">,
  producers: ProducerFilter,
) {
  const after = cursor ? Prisma.sql`AND (opened_at, id) > (${new Date(cursor.v)}, ${cursor.id}::uuid)` : Prisma.empty;
  const mine = Prisma.sql`AND ${producerIn(producers)}`;
  const named = operation ? Prisma.sql`AND operation_id LIKE ${prefixPattern(operation)}` : Prisma.empty;
  const rows = await db.$queryRaw<{ id: string; opened_at: Date }[]>(Prisma.sql`
    SELECT id, opened_at FROM cases WHERE state = 'resolved' AND held_micros > 0 ${after} ${mine} ${named}
    ORDER BY opened_at, id LIMIT ${limit + 1}`);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    caseIds: page.map((row) => row.id),
    nextCursor: rows.length > limit && last ? encode({ v: last.opened_at.toISOString(), id: last.id }) : null,
  };
}

/** `text` for a LIKE pattern, its own `%`, `_` and `\\` taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const prefixPattern = (text: string) => `${likeLiteral(text)}%`;

export type HoldListItem = Awaited<ReturnType<typeof listHolds>>["items"][number];
