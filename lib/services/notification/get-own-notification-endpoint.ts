import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requireProducer } from "../access/actor";
import { ENDPOINT_PUBLIC_FIELDS, endpointView } from "./list-notification-endpoints";

/** The calling producer's endpoint, or null when it has none; never the signing secret. */
export async function getOwnNotificationEndpoint(db: Db, actor: Principal) {
  const producer = requireProducer(actor);
  const endpoint = await db.notificationEndpoint.findUnique({
    where: { producer: producer.name },
    select: ENDPOINT_PUBLIC_FIELDS,
  });
  return { endpoint: endpoint ? endpointView(endpoint) : null };
}
