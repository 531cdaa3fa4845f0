import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { PROVIDER_NAMES } from "@/lib/providers/registry";
import type { ProviderName } from "@/lib/providers/types";
import type { ProviderBreakerInput } from "@/lib/validation/provider-breaker";
import { requirePermission } from "../access/actor";
import { closePauses } from "../scope-pause/writer/pauses";

type Settings = { unknownPercent: number; windowSeconds: number; minOutcomes: number };

export type ProviderBreakerView = {
  provider: ProviderName;
  /** null: no breaker on this provider. */
  settings: Settings | null;
  /** Set while the breaker refuses new permits. */
  pausedUntil: Date | null;
  trippedAt: Date | null;
  /** Producers paused at this provider on their own outcomes, while their pause runs. */
  pausedProducers: { producer: string; pausedUntil: Date }[];
};

export type Pause = { provider: string /** null: the whole provider. */; producer: string | null; pausedUntil: Date };

/**
 * Pauses running at `now`, of a provider or of one producer at it: what the overview shows and the
 * alert rule counts. `producers` limits the producer pauses to those (a provider's pause concerns
 * everyone). No permission: callers check theirs.
 */
export async function pausedProviders(
  db: Db,
  now = new Date(),
  producers: readonly string[] | null = null,
): Promise<Pause[]> {
  const rows = await db.pause.findMany({
    where: {
      cause: "breaker",
      resumedAt: null,
      until: { gt: now },
      OR: [{ kind: "provider" }, { kind: "producer", ...(producers ? { value: { in: [...producers] } } : {}) }],
    },
    select: { kind: true, value: true, atProvider: true, until: true },
  });
  return rows
    .map((r) =>
      r.kind === "provider"
        ? { provider: r.value, producer: null, pausedUntil: r.until as Date }
        : { provider: r.atProvider, producer: r.value, pausedUntil: r.until as Date },
    )
    .sort(
      (a, b) =>
        Number(a.producer !== null) - Number(b.producer !== null) ||
        a.provider.localeCompare(b.provider) ||
        (a.producer ?? "").localeCompare(b.producer ?? ""),
    );
}

/** Every known provider with its breaker, if any, and whether it refuses sends now (admin). */
export async function listProviderBreakers(db: Db, actor: Principal, now = new Date()): Promise<ProviderBreakerView[]> {
  requirePermission(actor, "admin:settings");
  const [rows, pauses, trips] = await Promise.all([
    db.providerBreaker.findMany(),
    pausedProviders(db, now),
    db.pause.groupBy({ by: ["value"], where: { cause: "breaker", kind: "provider" }, _max: { pausedAt: true } }),
  ]);
  return PROVIDER_NAMES.map((provider) => {
    const row = rows.find((r) => r.provider === provider);
    const mine = pauses.filter((p) => p.provider === provider);
    return {
      provider,
      settings: row
        ? { unknownPercent: row.unknownPercent, windowSeconds: row.windowSeconds, minOutcomes: row.minOutcomes }
        : null,
      pausedUntil: row ? (mine.find((p) => p.producer === null)?.pausedUntil ?? null) : null,
      trippedAt: row ? (trips.find((t) => t.value === provider)?._max.pausedAt ?? null) : null,
      pausedProducers: row
        ? mine.flatMap((p) => (p.producer === null ? [] : [{ producer: p.producer, pausedUntil: p.pausedUntil }]))
        : [],
    };
  });
}

/**
 * Sets a provider's breaker (threshold, window, minimum outcomes) or removes it (admin). A change
 * keeps a running pause: only a resume ends it early. Removing the breaker removes its pause too.
 */
export async function saveProviderBreaker(db: Db, actor: Principal, input: ProviderBreakerInput) {
  const admin = requirePermission(actor, "admin:settings");
  return inTransaction(db, async (tx) => {
    // The row lock orders two admins saving at once, so each audit row's "before" is what it replaced.
    const [before] = await tx.$queryRaw<{ unknown_percent: number; window_seconds: number; min_outcomes: number }[]>`
      SELECT unknown_percent, window_seconds, min_outcomes FROM provider_breakers WHERE provider = ${input.provider} FOR UPDATE`;
    const was = before
      ? {
          unknownPercent: before.unknown_percent,
          windowSeconds: before.window_seconds,
          minOutcomes: before.min_outcomes,
        }
      : null;
    let after: Settings | null = null;
    if ("off" in input) {
      await tx.providerBreaker.deleteMany({ where: { provider: input.provider } });
      // No breaker, no breaker pause: its running pauses end with it (a person's pause stays).
      await closePauses(
        tx,
        { cause: "breaker", provider: input.provider },
        { label: admin.name || admin.email, reason: null },
      );
    } else {
      after = {
        unknownPercent: input.unknownPercent,
        windowSeconds: input.windowSeconds,
        minOutcomes: input.minOutcomes,
      };
      await tx.providerBreaker.upsert({
        where: { provider: input.provider },
        create: { provider: input.provider, ...after, updatedById: admin.userId },
        update: { ...after, updatedById: admin.userId, updatedAt: new Date() },
      });
    }
    await recordAudit(tx, {
      actor: admin,
      kind: "provider_breaker_updated",
      before: { provider: input.provider, breaker: was },
      after: { provider: input.provider, breaker: after },
    });
    return { provider: input.provider, settings: after };
  });
}

/**
 * Reopens a paused provider (admin), and every producer paused at it: the pauses end now, and the
 * outcomes reported before now stop counting, so the next unknown is judged on what happens after
 * the resume, not on what tripped it.
 */
export async function resumeProviderBreaker(db: Db, actor: Principal, provider: ProviderName) {
  const admin = requirePermission(actor, "admin:settings");
  return inTransaction(db, async (tx) => {
    const [row] = await tx.$queryRaw<{ provider: string }[]>`
      SELECT provider FROM provider_breakers WHERE provider = ${provider} FOR UPDATE`;
    if (!row) throw new AppError("not_found", `${provider} has no breaker to resume.`);
    const now = new Date();
    await tx.providerBreaker.update({
      where: { provider },
      data: { countsFrom: now, updatedById: admin.userId, updatedAt: now },
    });
    // Only the breaker's pauses: a person's pause of the provider is that person's to resume (decision 070).
    const closed = await closePauses(
      tx,
      { cause: "breaker", provider },
      { label: admin.name || admin.email, reason: null },
    );
    const whole = closed.find((c) => c.kind === "provider" && c.wasRunning);
    const producers = closed.filter((c) => c.kind === "producer" && c.wasRunning).map((c) => c.value);
    await recordAudit(tx, {
      actor: admin,
      kind: "provider_breaker_resumed",
      before: { provider, pausedUntil: whole?.until?.toISOString() ?? null },
      after: {
        provider,
        pausedUntil: null,
        countsFrom: now.toISOString(),
        producersResumed: producers,
      },
    });
    return {
      provider,
      resumedAt: now.toISOString(),
      wasPaused: whole !== undefined,
      producersResumed: producers,
    };
  });
}
