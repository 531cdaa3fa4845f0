import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { ProviderName } from "@/lib/providers/types";
import { MAX_REQUESTS_PER_SECOND, PACED_PROVIDERS } from "@/lib/validation/provider-pace";
import { requirePermission } from "../access/actor";

export type ProviderPaceView = { provider: ProviderName; requestsPerSecond: number | null; holdOffUntil: Date | null };

/** Each provider's shared rate (null: unpaced) and a Retry-After still running, if any. */
export async function listProviderPaces(db: Db, actor: Principal): Promise<ProviderPaceView[]> {
  requirePermission(actor, "admin:settings");
  const rows = await db.providerPace.findMany();
  const now = Date.now();
  return PACED_PROVIDERS.map((provider) => {
    const row = rows.find((r) => r.provider === provider);
    return {
      provider,
      requestsPerSecond: row?.requestsPerSecond ?? null,
      holdOffUntil: row && row.holdOffUntil.getTime() > now ? row.holdOffUntil : null,
    };
  });
}

/**
 * Sets the rate every worker process keeps to with a provider (the provider's limit for the whole
 * account), or clears it (null: unpaced). Takes effect on the next request of every process.
 */
export async function saveProviderPace(
  db: Db,
  actor: Principal,
  input: { provider: ProviderName; requestsPerSecond: number | null },
) {
  const admin = requirePermission(actor, "admin:settings");
  const rate = input.requestsPerSecond;
  if (!PACED_PROVIDERS.includes(input.provider)) {
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "provider", message: `one of ${PACED_PROVIDERS.join(", ")}` }],
    });
  }
  if (rate !== null && !(rate > 0 && rate <= MAX_REQUESTS_PER_SECOND)) {
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: "requestsPerSecond", message: `more than 0, at most ${MAX_REQUESTS_PER_SECOND}` }],
    });
  }
  return inTransaction(db, async (tx) => {
    // The row lock orders two admins saving at once, so each audit row's "before" is what it replaced.
    const [before] = await tx.$queryRaw<{ requests_per_second: number | null }[]>`
      SELECT requests_per_second FROM provider_pace WHERE provider = ${input.provider} FOR UPDATE`;
    const saved = await tx.providerPace.upsert({
      where: { provider: input.provider },
      create: { provider: input.provider, requestsPerSecond: rate, updatedById: admin.userId },
      update: { requestsPerSecond: rate, updatedById: admin.userId, updatedAt: new Date() },
    });
    await recordAudit(tx, {
      actor: admin,
      kind: "provider_pace_updated",
      before: { provider: input.provider, requestsPerSecond: before?.requests_per_second ?? null },
      after: { provider: input.provider, requestsPerSecond: saved.requestsPerSecond },
    });
    return { provider: input.provider, requestsPerSecond: saved.requestsPerSecond };
  });
}
