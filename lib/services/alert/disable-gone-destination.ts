import type { Db } from "@/lib/db/client";
import { endOpenEpisodes } from "./end-open-episodes";

/**
 * An alert destination that answered 410 Gone is disabled and its rules' open episodes end (no
 * "resolved" message goes to a place that is gone). Handed to the outbox's sender by the worker,
 * so the notification folder, which alerts send through, never imports alerts back.
 */
export async function disableGoneDestination(tx: Db, destinationId: string, now: Date): Promise<void> {
  await tx.alertDestination.update({ where: { id: destinationId }, data: { disabledAt: now } });
  await endOpenEpisodes(tx, { destinationId });
}
