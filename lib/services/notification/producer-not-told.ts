import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { type ProducerFilter, producerIn } from "@/lib/db/stat-figures";

/**
 * A producer's message about a case that was given up (a 410 answer, the last of its sends, or no
 * endpoint left to send it to) and never delivered: the case is flagged "producer not told" until a
 * resend is delivered (decision 045). Spelled as the partial index's predicate, so every reader of
 * the flag reads only these rows.
 */
export const GIVEN_UP = Prisma.sql`producer IS NOT NULL AND case_id IS NOT NULL AND give_up_at IS NOT NULL AND delivered_at IS NULL`;

/** Cases whose producer was not told, for readers that have checked the caller's permission already. */
export async function producerNotToldCount(db: Db, producers: ProducerFilter = null): Promise<number> {
  const rows = await sqlRows<{ n: bigint }>(
    db,
    Prisma.sql`SELECT count(DISTINCT case_id) AS n FROM notification_outbox WHERE ${GIVEN_UP} AND ${producerIn(producers)}`,
  );
  return Number(rows[0]?.n ?? 0);
}

export type GivenUpNotification = {
  webhookId: string;
  eventType: string;
  sends: number;
  /** The receiver's last HTTP status, or null when it never answered (or its address was refused). */
  lastStatus: number | null;
  givenUpAt: string;
};

/**
 * One case's given-up messages, oldest first. The send errors stay in the outbox and the server's
 * log: what a producer's host name resolved to inside this network is not shown (decision 018).
 */
export async function givenUpNotifications(db: Db, caseId: string): Promise<GivenUpNotification[]> {
  const rows = await sqlRows<{
    id: string;
    event_type: string;
    attempts: number;
    last_status: number | null;
    give_up_at: Date;
  }>(
    db,
    Prisma.sql`SELECT id, event_type, attempts, last_status, give_up_at FROM notification_outbox
      WHERE case_id = ${caseId}::uuid AND ${GIVEN_UP} ORDER BY created_at, id`,
  );
  return rows.map((row) => ({
    webhookId: row.id,
    eventType: row.event_type,
    sends: row.attempts,
    lastStatus: row.last_status,
    givenUpAt: row.give_up_at.toISOString(),
  }));
}
