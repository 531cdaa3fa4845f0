import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";
import { noJobSettlingSeconds, SETTLED_PROVIDERS } from "./provider-settings";

/** A week: beyond that a lost submission is a matter for the provider's support, not for waiting. */
export const MAX_SETTLING_SECONDS = 7 * 24 * 60 * 60;

export type SaveProviderSettingInput = { provider: string; noJobSettlingSeconds: number };

/** Stores a provider's settling period, with the value it replaced in the audit row. */
export async function saveProviderSetting(db: Db, actor: Principal, input: SaveProviderSettingInput) {
  const admin = requirePermission(actor, "admin:settings");
  const issues: { path: string; message: string }[] = [];
  if (!SETTLED_PROVIDERS.includes(input.provider as never)) {
    issues.push({ path: "provider", message: `one of ${SETTLED_PROVIDERS.join(", ")}` });
  }
  const seconds = input.noJobSettlingSeconds;
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_SETTLING_SECONDS) {
    issues.push({ path: "noJobSettlingSeconds", message: `whole seconds from 0 to ${MAX_SETTLING_SECONDS}` });
  }
  if (issues.length) throw new AppError("invalid_request", "Check the highlighted fields.", { issues });
  return inTransaction(db, async (tx) => {
    // Serialises two admins saving the same provider, so each audit row's "before" is what it replaced.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('provider_settings:' || ${input.provider}))`;
    const before = await noJobSettlingSeconds(tx, input.provider);
    const saved = await tx.providerSetting.upsert({
      where: { provider: input.provider },
      create: { provider: input.provider, noJobSettlingSeconds: seconds, updatedById: admin.userId },
      update: { noJobSettlingSeconds: seconds, updatedById: admin.userId, updatedAt: new Date() },
    });
    await recordAudit(tx, {
      actor: admin,
      kind: "provider_setting_updated",
      before: { provider: input.provider, noJobSettlingSeconds: before },
      after: { provider: input.provider, noJobSettlingSeconds: saved.noJobSettlingSeconds },
    });
    return { provider: saved.provider, noJobSettlingSeconds: saved.noJobSettlingSeconds };
  });
}
