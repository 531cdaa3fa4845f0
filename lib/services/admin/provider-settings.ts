import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { DEFAULT_NO_JOB_SETTLING_SECONDS } from "@/lib/providers/registry";
import type { ProviderName } from "@/lib/providers/types";
import { requirePermission } from "../access/actor";

export const SETTLED_PROVIDERS = Object.keys(DEFAULT_NO_JOB_SETTLING_SECONDS) as ProviderName[];

/** A provider the adapters do not know gets the strictest known default rather than none. */
function defaultFor(provider: string): number {
  return (
    (DEFAULT_NO_JOB_SETTLING_SECONDS as Partial<Record<string, number>>)[provider] ??
    Math.max(...Object.values(DEFAULT_NO_JOB_SETTLING_SECONDS))
  );
}

/** The settling period that applies to a provider now: the stored value, else the adapter's default. */
export async function noJobSettlingSeconds(db: Db, provider: string): Promise<number> {
  const row = await db.providerSetting.findUnique({ where: { provider } });
  return row?.noJobSettlingSeconds ?? defaultFor(provider);
}

export type ProviderSettingRow = {
  provider: string;
  noJobSettlingSeconds: number;
  defaultSeconds: number;
  stored: boolean;
  updatedAt: Date | null;
};

/** Every known provider, stored or not, so the admin page can show what applies today. */
export async function listProviderSettings(db: Db, actor: Principal): Promise<ProviderSettingRow[]> {
  requirePermission(actor, "admin:settings");
  const rows = await db.providerSetting.findMany();
  const providers = [...new Set([...SETTLED_PROVIDERS, ...rows.map((r) => r.provider)])].sort();
  return providers.map((provider) => {
    const row = rows.find((r) => r.provider === provider);
    return {
      provider,
      noJobSettlingSeconds: row?.noJobSettlingSeconds ?? defaultFor(provider),
      defaultSeconds: defaultFor(provider),
      stored: row !== undefined,
      updatedAt: row?.updatedAt ?? null,
    };
  });
}

/**
 * Every provider's settling period now, for set-based statements (the escalation sweep), with the
 * period an unknown provider gets.
 */
export async function settlingPeriods(
  db: Db,
): Promise<{ periods: { provider: string; seconds: number }[]; fallback: number }> {
  const rows = await db.providerSetting.findMany({ select: { provider: true, noJobSettlingSeconds: true } });
  const providers = [...new Set([...SETTLED_PROVIDERS, ...rows.map((r) => r.provider)])];
  const periods = providers.map((provider) => ({
    provider,
    seconds: rows.find((r) => r.provider === provider)?.noJobSettlingSeconds ?? defaultFor(provider),
  }));
  return { periods, fallback: defaultFor("") };
}
