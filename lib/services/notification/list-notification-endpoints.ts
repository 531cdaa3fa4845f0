import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/** Every column except the signing secret, which leaves the server only once, when issued. */
export const ENDPOINT_PUBLIC_FIELDS = {
  id: true,
  producer: true,
  url: true,
  disabledAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

export async function listNotificationEndpoints(db: Db, actor: Principal) {
  requirePermission(actor, "admin:api_keys");
  return db.notificationEndpoint.findMany({ orderBy: { producer: "asc" }, select: ENDPOINT_PUBLIC_FIELDS });
}
