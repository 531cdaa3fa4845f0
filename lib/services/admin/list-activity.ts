import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { ACTIVITY_GROUPS, type ActivityGroup, ALL_ACTIVITY_KINDS, activitySubject } from "@/lib/domain/activity-kinds";
import type { Principal } from "@/lib/domain/principal";
import { describeEvent } from "@/lib/domain/timeline-words";
import { requirePermission, requireUnscoped } from "../access/actor";

export const ACTIVITY_PAGE_SIZE = 50;

export type ActivityItem = {
  /** The audit row's id, as text: the next page's cursor. */
  id: string;
  kind: string;
  sentence: string;
  subject: string | null;
  actor: string;
  at: string;
};

export type ActivityPage = { items: ActivityItem[]; nextCursor: string | null };

/**
 * The deployment's changes to people, access, settings, alerts, retention and limits, newest first
 * (decision 066), read from the audit log's system chain: rows with no case and no operation
 * (decision 059). Keyset pages by the row's id, so a page costs the same however deep it is; the
 * kinds are few and written by people, so `(kind, created_at)` finds them at any table size.
 * Deployment-wide: for admins who see every producer.
 */
export async function listActivity(
  db: Db,
  actor: Principal,
  query: { group?: ActivityGroup | null; before?: string | null; limit?: number },
): Promise<ActivityPage> {
  requireUnscoped(requirePermission(actor, "admin:settings"));
  const limit = Math.min(Math.max(query.limit ?? ACTIVITY_PAGE_SIZE, 1), 200);
  const kinds: readonly string[] = query.group ? ACTIVITY_GROUPS[query.group] : ALL_ACTIVITY_KINDS;
  const before =
    query.before && /^\d{1,19}$/.test(query.before) ? Prisma.sql`AND id < ${query.before}::bigint` : Prisma.empty;
  const rows = await sqlRows<{
    id: bigint;
    kind: string;
    actor_label: string;
    created_at: Date;
    before: unknown;
    after: unknown;
    evidence: unknown;
  }>(
    db,
    Prisma.sql`
    SELECT id, kind, actor_label, created_at, before, after, evidence FROM audit_events
     WHERE case_id IS NULL AND operation_ref IS NULL AND kind = ANY(${[...kinds]}::text[]) ${before}
     ORDER BY id DESC LIMIT ${limit + 1}`,
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map((row) => ({
      id: String(row.id),
      kind: row.kind,
      sentence: describeEvent(row).sentence,
      subject: activitySubject(row.after, row.before, row.evidence),
      actor: row.actor_label,
      at: row.created_at.toISOString(),
    })),
    nextCursor: rows.length > limit ? String(page[page.length - 1]?.id) : null,
  };
}
