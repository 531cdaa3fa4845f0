import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { type EndpointUrlOptions, requireEndpointUrl } from "@/lib/validation/admin";
import { endpointManager, namedByAdmin } from "./endpoint-manager";
import { ENDPOINT_PUBLIC_FIELDS } from "./list-notification-endpoints";
import { generateSigningSecret } from "./notification-endpoint-signature";

/**
 * Sets a producer's notification URL, from the console (an admin, naming the producer) or the API
 * (a producer's key, for its own endpoint only). The first time, a signing secret is generated and
 * returned (the only time it is ever returned); later saves change the URL and keep the secret.
 * `allow` lists the hosts that may be private or plain http (WEBHOOK_ALLOWED_HOSTS; in demo mode
 * this machine, for trying the product out with a local receiver).
 */
export async function saveNotificationEndpoint(
  db: Db,
  actor: Principal,
  input: { producer?: string; url: string },
  options: EndpointUrlOptions,
) {
  const { actor: admin, ownProducer } = endpointManager(actor);
  const producer = ownProducer ?? namedByAdmin(input.producer, "producer");
  const url = requireEndpointUrl(input.url, options);
  try {
    return await inTransaction(db, async (tx) => {
      const key = await tx.accessToken.findFirst({ where: { kind: "api_key", name: producer } });
      if (!key) {
        throw new AppError("invalid_request", `No API key was ever issued to a producer named ${producer}.`, {
          issues: [{ path: "producer", message: "create an API key for this producer first" }],
        });
      }
      const existing = await tx.notificationEndpoint.findUnique({
        where: { producer },
        select: ENDPOINT_PUBLIC_FIELDS,
      });
      if (existing) {
        if (existing.url === url) return { endpoint: existing, signingSecret: null };
        const endpoint = await tx.notificationEndpoint.update({
          where: { id: existing.id },
          data: { url },
          select: ENDPOINT_PUBLIC_FIELDS,
        });
        await recordAudit(tx, {
          actor: admin,
          kind: "endpoint_updated",
          before: { id: existing.id, producer: existing.producer, url: existing.url },
          after: { id: endpoint.id, producer: endpoint.producer, url: endpoint.url },
        });
        return { endpoint, signingSecret: null };
      }
      const signingSecret = generateSigningSecret();
      const endpoint = await tx.notificationEndpoint.create({
        data: { producer, url, signingSecret },
        select: ENDPOINT_PUBLIC_FIELDS,
      });
      await recordAudit(tx, {
        actor: admin,
        kind: "endpoint_created",
        after: { id: endpoint.id, producer: endpoint.producer, url: endpoint.url },
      });
      return { endpoint, signingSecret };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("conflict", "Someone else configured this producer's endpoint at the same moment.");
    }
    throw error;
  }
}
