import type { Db } from "@/lib/db/client";
import type { BulkJobKind, BulkJobState } from "@/lib/domain/bulk-jobs";
import type { Principal } from "@/lib/domain/principal";
import { can } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";
import type { BulkJobListQuery } from "@/lib/validation/bulk";

export const BULK_JOBS_PAGE = 25;

type Cursor = { at: string; id: string };

function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Cursor;
    if (
      typeof value.at === "string" &&
      !Number.isNaN(Date.parse(value.at)) &&
      typeof value.id === "string" &&
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value.id)
    )
      return value;
  } catch {}
  throw new AppError("invalid_request", "The cursor is not one this page issued.");
}

/**
 * The bulk jobs a person may watch (decision 065: their own; an admin's, everyone's), newest first,
 * a page at a time on (started, id). An admin limited to some producers sees only their own: another
 * person's job acted on cases chosen within that person's scope (decision 035).
 */
export async function listBulkJobs(db: Db, actor: Principal, query: BulkJobListQuery) {
  if (actor.kind !== "user") throw new AppError("forbidden", "This needs a signed-in user.");
  const everyone = can(actor.roles, "admin:settings") && actor.producers === null;
  const cursor = decodeCursor(query.cursor);
  const rows = await db.bulkJob.findMany({
    where: {
      ...(everyone ? {} : { userId: actor.userId }),
      ...(cursor
        ? {
            OR: [{ createdAt: { lt: new Date(cursor.at) } }, { createdAt: new Date(cursor.at), id: { lt: cursor.id } }],
          }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: BULK_JOBS_PAGE + 1,
    select: {
      id: true,
      kind: true,
      verb: true,
      state: true,
      planned: true,
      done: true,
      skipped: true,
      failed: true,
      createdAt: true,
      finishedAt: true,
      userId: true,
      user: { select: { name: true } },
    },
  });
  const page = rows.slice(0, BULK_JOBS_PAGE);
  const last = page.at(-1);
  return {
    everyone,
    items: page.map((job) => ({
      id: job.id,
      kind: job.kind as BulkJobKind,
      verb: job.verb,
      state: job.state as BulkJobState,
      planned: job.planned,
      done: job.done,
      skipped: job.skipped,
      failed: job.failed,
      startedAt: job.createdAt.toISOString(),
      finishedAt: job.finishedAt?.toISOString() ?? null,
      mine: job.userId === actor.userId,
      startedBy: job.user.name,
    })),
    nextCursor:
      rows.length > BULK_JOBS_PAGE && last
        ? Buffer.from(JSON.stringify({ at: last.createdAt.toISOString(), id: last.id })).toString("base64url")
        : null,
  };
}

export type BulkJobList = Awaited<ReturnType<typeof listBulkJobs>>;
