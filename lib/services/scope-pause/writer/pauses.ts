import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import type { PauseCause, PauseKind } from "@/lib/domain/scope-pauses";

/**
 * The one writer of `pauses` (decisions 003, 070): a person's pause switch and the unknown-outcome
 * breaker open and close their pauses here, each in the caller's transaction, which also writes the
 * audit row. A pause is closed, never deleted: `resumed_at` says when it ended, so the breaker's count
 * can start after a resume and the page can say what happened.
 */

/** One open pause per (kind, value, atProvider, cause): the partial unique index `pauses_open`. */
export type PauseKey = { kind: PauseKind; value: string; cause: PauseCause; atProvider?: string };

export type Opened = { created: boolean; until: Date | null };

/**
 * Opens a pause. A person's: pausing what that person's cause already pauses changes nothing
 * (`created: false`; the first pause and its reason stand). The breaker's (`untilSeconds` from now):
 * one whose window already passed is closed as ended then and a new one opens; one still running
 * is extended to the new end, the time the outcomes that tripped it again take to leave the window.
 */
export async function openPause(
  tx: Db,
  key: PauseKey,
  by: { reason: string; pausedById: string | null; pausedByLabel: string; untilSeconds?: number },
): Promise<Opened> {
  const atProvider = key.atProvider ?? "";
  const until =
    by.untilSeconds === undefined
      ? Prisma.sql`NULL`
      : Prisma.sql`now() + make_interval(secs => ${by.untilSeconds}::int)`;
  const same = Prisma.sql`kind = ${key.kind}::"PauseKind" AND value = ${key.value} AND at_provider = ${atProvider}
    AND cause = ${key.cause}::"PauseCause" AND resumed_at IS NULL`;
  if (key.cause === "breaker") {
    await tx.$executeRaw`UPDATE pauses SET resumed_at = until, resumed_by_label = 'Its window ended'
      WHERE ${same} AND until <= now()`;
  }
  const rows = await sqlRows<{ created: boolean; until: Date | null }>(
    tx,
    Prisma.sql`
    INSERT INTO pauses (kind, value, at_provider, cause, reason, paused_by_id, paused_by_label, until)
    VALUES (${key.kind}::"PauseKind", ${key.value}, ${atProvider}, ${key.cause}::"PauseCause", ${by.reason},
            ${by.pausedById}::uuid, ${by.pausedByLabel}, ${until})
    ON CONFLICT (kind, value, at_provider, cause) WHERE resumed_at IS NULL
    ${key.cause === "breaker" ? Prisma.sql`DO UPDATE SET until = EXCLUDED.until` : Prisma.sql`DO NOTHING`}
    RETURNING (xmax = 0) AS created, until`,
  );
  const row = rows[0];
  return row ? { created: row.created, until: row.until } : { created: false, until: null };
}

export type Closed = {
  kind: PauseKind;
  value: string;
  atProvider: string;
  cause: PauseCause;
  reason: string;
  pausedBy: string;
  pausedAt: Date;
  until: Date | null;
  /** It still refused sends when closed (a breaker pause past its end had already ended on its own). */
  wasRunning: boolean;
};

/**
 * Which open pauses a resume closes: a person's pause of one scope, or the breaker's pause of a
 * provider with every producer it paused at that provider, or of one producer at a provider.
 */
export type PauseSelection =
  | { cause: "person"; kind: PauseKind; value: string }
  | { cause: "breaker"; provider: string; producer?: string };

/**
 * Closes the selected open pauses now, by whom and why. A breaker pause whose end had passed is
 * recorded as ended at its end, by its window, not by this resume.
 */
export async function closePauses(
  tx: Db,
  selection: PauseSelection,
  by: { label: string; reason: string | null },
): Promise<Closed[]> {
  const which =
    selection.cause === "person"
      ? Prisma.sql`kind = ${selection.kind}::"PauseKind" AND value = ${selection.value} AND cause = 'person'`
      : selection.producer !== undefined
        ? Prisma.sql`cause = 'breaker' AND kind = 'producer' AND value = ${selection.producer}
            AND at_provider = ${selection.provider}`
        : Prisma.sql`cause = 'breaker' AND ((kind = 'provider' AND value = ${selection.provider} AND at_provider = '')
            OR (kind = 'producer' AND at_provider = ${selection.provider}))`;
  return sqlRows<Closed>(
    tx,
    Prisma.sql`
    UPDATE pauses SET
      resumed_at = CASE WHEN until <= now() THEN until ELSE now() END,
      resumed_by_label = CASE WHEN until <= now() THEN 'Its window ended' ELSE ${by.label} END,
      resume_reason = CASE WHEN until <= now() THEN NULL ELSE ${by.reason} END
    WHERE resumed_at IS NULL AND ${which}
    RETURNING kind::text AS kind, value, at_provider AS "atProvider", cause::text AS cause, reason,
              paused_by_label AS "pausedBy", paused_at AS "pausedAt", until,
              (until IS NULL OR until > now()) AS "wasRunning"`,
  );
}
