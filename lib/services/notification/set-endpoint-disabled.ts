import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { endpointManager, NO_OWN_ENDPOINT, namedByAdmin } from "./endpoint-manager";
import { ENDPOINT_PUBLIC_FIELDS } from "./list-notification-endpoints";

/**
 * A disabled endpoint keeps its URL and secret but is sent nothing. Idempotent. An admin names
 * the endpoint (`endpointId`); a producer's key disables or enables its own.
 */
export async function setEndpointDisabled(db: Db, actor: Principal, input: { endpointId?: string; disabled: boolean }) {
  const { actor: manager, ownProducer } = endpointManager(actor);
  const { disabled } = input;
  const where = ownProducer ? { producer: ownProducer } : { id: namedByAdmin(input.endpointId, "endpointId") };
  return inTransaction(db, async (tx) => {
    const existing = await tx.notificationEndpoint.findUnique({ where, select: ENDPOINT_PUBLIC_FIELDS });
    if (!existing) throw new AppError("not_found", ownProducer ? NO_OWN_ENDPOINT : "No such notification endpoint.");
    if ((existing.disabledAt !== null) === disabled) return existing;
    const endpoint = await tx.notificationEndpoint.update({
      where: { id: existing.id },
      data: { disabledAt: disabled ? new Date() : null },
      select: ENDPOINT_PUBLIC_FIELDS,
    });
    await recordAudit(tx, {
      actor: manager,
      kind: disabled ? "endpoint_disabled" : "endpoint_enabled",
      after: { id: endpoint.id, producer: endpoint.producer },
    });
    return endpoint;
  });
}
