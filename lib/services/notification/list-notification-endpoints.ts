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
  secretRotatedAt: true,
} as const;

type PublicEndpoint = {
  id: string;
  producer: string;
  url: string;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  secretRotatedAt: Date | null;
};

/** What the API answers about an endpoint: its public columns, and whether it is sent anything. */
export function endpointView(endpoint: PublicEndpoint) {
  return { ...endpoint, enabled: endpoint.disabledAt === null };
}

export async function listNotificationEndpoints(db: Db, actor: Principal) {
  requirePermission(actor, "admin:api_keys");
  return db.notificationEndpoint.findMany({ orderBy: { producer: "asc" }, select: ENDPOINT_PUBLIC_FIELDS });
}
