import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { endpointManager, NO_OWN_ENDPOINT, namedByAdmin } from "./endpoint-manager";
import { ENDPOINT_PUBLIC_FIELDS } from "./list-notification-endpoints";
import { generateSigningSecret } from "./notification-endpoint-signature";

/**
 * Replaces the signing secret and returns the new one, once. There is no overlap: the old secret
 * stops signing at once, including a message already taken for sending, which is signed when it is
 * sent. An admin names the endpoint (`endpointId`); a producer's key rotates its own.
 */
export async function rotateEndpointSecret(db: Db, actor: Principal, input: { endpointId?: string } = {}) {
  const { actor: manager, ownProducer } = endpointManager(actor);
  const where = ownProducer ? { producer: ownProducer } : { id: namedByAdmin(input.endpointId, "endpointId") };
  const signingSecret = generateSigningSecret();
  return inTransaction(db, async (tx) => {
    const updated = await tx.notificationEndpoint.updateManyAndReturn({
      where,
      data: { signingSecret, secretRotatedAt: new Date() },
      select: ENDPOINT_PUBLIC_FIELDS,
    });
    const endpoint = updated[0];
    if (!endpoint) throw new AppError("not_found", ownProducer ? NO_OWN_ENDPOINT : "No such notification endpoint.");
    await recordAudit(tx, {
      actor: manager,
      kind: "endpoint_secret_rotated",
      after: { id: endpoint.id, producer: endpoint.producer },
    });
    return { endpoint, signingSecret };
  });
}
