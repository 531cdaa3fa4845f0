import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { endpointIdSchema } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import { parseInput } from "../admin/admin-guard";
import { recordAudit } from "../case/writer/audit";
import { ENDPOINT_PUBLIC_FIELDS } from "./list-notification-endpoints";
import { generateSigningSecret } from "./notification-endpoint-signature";

/** Replaces the signing secret (the old one stops signing at once) and returns the new one, once. */
export async function rotateEndpointSecret(db: Db, actor: Principal, raw: { endpointId: string }) {
  const admin = requirePermission(actor, "admin:api_keys");
  const input = parseInput(endpointIdSchema, raw);
  const signingSecret = generateSigningSecret();
  return inTransaction(db, async (tx) => {
    const updated = await tx.notificationEndpoint.updateManyAndReturn({
      where: { id: input.endpointId },
      data: { signingSecret },
      select: ENDPOINT_PUBLIC_FIELDS,
    });
    const endpoint = updated[0];
    if (!endpoint) throw new AppError("not_found", "No such notification endpoint.");
    await recordAudit(tx, {
      actor: admin,
      kind: "endpoint_secret_rotated",
      after: { id: endpoint.id, producer: endpoint.producer },
    });
    return { endpoint, signingSecret };
  });
}
