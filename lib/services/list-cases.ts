import type { Db, Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { ListCasesQuery } from "@/lib/validation/list-cases";
import { requirePermission } from "./actor";

type Cursor = { v: string; id: string };

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    if (typeof value.v === "string" && typeof value.id === "string" && /^[0-9a-f-]{36}$/.test(value.id)) return value;
  } catch {}
  throw new AppError("invalid_request", "The cursor is not one this API issued.");
}

/**
 * Keyset pagination: by age (oldest first) on (opened_at, id), or by money (largest first) on
 * (held_micros, id), so page 1,000 costs what page 1 costs. Open cases unless a state is asked for.
 */
export async function listCases(db: Db, actor: Principal, query: ListCasesQuery, now = new Date()) {
  requirePermission(actor, "case:read");
  const cursor = decodeCursor(query.cursor);
  const where: Prisma.CaseWhereInput[] = [query.state ? { state: query.state } : { state: { not: "resolved" } }];
  if (query.stage) where.push({ stage: query.stage });
  if (query.provider) where.push({ provider: query.provider });
  if (query.model) where.push({ model: query.model });
  if (query.assigneeId) where.push({ assigneeId: query.assigneeId });
  if (query.minAgeSeconds !== undefined)
    where.push({ openedAt: { lte: new Date(now.getTime() - query.minAgeSeconds * 1000) } });
  if (query.minAmountMicros !== undefined) where.push({ heldMicros: { gte: BigInt(query.minAmountMicros) } });
  if (query.q) where.push({ OR: [{ operationId: query.q }, { attemptId: query.q }, { providerJobId: query.q }] });
  if (cursor && query.sort === "age") {
    const at = new Date(cursor.v);
    where.push({ OR: [{ openedAt: { gt: at } }, { openedAt: at, id: { gt: cursor.id } }] });
  }
  if (cursor && query.sort === "amount") {
    const amount = BigInt(cursor.v);
    where.push({ OR: [{ heldMicros: { lt: amount } }, { heldMicros: amount, id: { lt: cursor.id } }] });
  }
  const orderBy: Prisma.CaseOrderByWithRelationInput[] =
    query.sort === "age" ? [{ openedAt: "asc" }, { id: "asc" }] : [{ heldMicros: "desc" }, { id: "desc" }];
  const rows = await db.case.findMany({ where: { AND: where }, orderBy, take: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last
      ? encodeCursor({
          v: query.sort === "age" ? last.openedAt.toISOString() : last.heldMicros.toString(),
          id: last.id,
        })
      : null;
  return {
    items: page.map((row) => ({
      id: row.id,
      operationId: row.operationId,
      attemptId: row.attemptId,
      stage: row.stage,
      state: row.state,
      provider: row.provider,
      model: row.model,
      providerJobId: row.providerJobId,
      heldMicros: Number(row.heldMicros),
      currency: row.currency,
      assigneeId: row.assigneeId,
      episode: row.episode,
      openedAt: row.openedAt.toISOString(),
      ageSeconds: Math.max(0, Math.floor((now.getTime() - row.openedAt.getTime()) / 1000)),
    })),
    nextCursor,
  };
}
