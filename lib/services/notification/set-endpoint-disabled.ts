import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { setEndpointDisabledSchema } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import { parseInput } from "../admin/admin-guard";
import { recordAudit } from "../case/writer/audit";
import { ENDPOINT_PUBLIC_FIELDS } from "./list-notification-endpoints";

/** A disabled endpoint keeps its URL and secret but is sent nothing. Idempotent. */
export async function setEndpointDisabled(db: Db, actor: Principal, raw: { endpointId: string; disabled: boolean }) {
  const admin = requirePermission(actor, "admin:api_keys");
  const input = parseInput(setEndpointDisabledSchema, raw);
  return inTransaction(db, async (tx) => {
    const existing = await tx.notificationEndpoint.findUnique({
      where: { id: input.endpointId },
      select: ENDPOINT_PUBLIC_FIELDS,
    });
    if (!existing) throw new AppError("not_found", "No such notification endpoint.");
    if ((existing.disabledAt !== null) === input.disabled) return existing;
    const endpoint = await tx.notificationEndpoint.update({
      where: { id: existing.id },
      data: { disabledAt: input.disabled ? new Date() : null },
      select: ENDPOINT_PUBLIC_FIELDS,
    });
    await recordAudit(tx, {
      actor: admin,
      kind: input.disabled ? "endpoint_disabled" : "endpoint_enabled",
      after: { id: endpoint.id, producer: endpoint.producer },
    });
    return endpoint;
  });
}
