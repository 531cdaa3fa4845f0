import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { type EndpointUrlOptions, requireEndpointUrl } from "@/lib/validation/admin";
import type { SaveAlertDestinationInput } from "@/lib/validation/alerts";
import { requirePermission } from "../access/actor";
import { generateSigningSecret } from "../notification/notification-endpoint-signature";
import { makeAlertRoundDue } from "./alert-schedule";
import { endOpenEpisodes } from "./end-open-episodes";
import { publicDestination } from "./list-alert-settings";

/**
 * Creates an alert destination or changes one's name, URL or disabled flag. A new Standard Webhooks
 * destination gets a signing secret, returned this once (decision 004); a Slack URL is the
 * credential itself, so the audit row records only its host. Its rules are judged as saved on the
 * next tick (the round is made due); disabling it ends its rules' open episodes quietly, since they
 * can tell nobody any more and are not judged while it stays disabled.
 */
export async function saveAlertDestination(
  db: Db,
  actor: Principal,
  input: SaveAlertDestinationInput,
  options: EndpointUrlOptions,
) {
  const admin = requirePermission(actor, "admin:settings");
  const url = requireEndpointUrl(input.url, options);
  const disabledAt = input.disabled ? new Date() : null;
  try {
    return await inTransaction(db, async (tx) => {
      if (!input.id) {
        const signingSecret = input.kind === "webhook" ? generateSigningSecret() : null;
        const created = await tx.alertDestination.create({
          data: { name: input.name, kind: input.kind, url, signingSecret, disabledAt },
        });
        const destination = publicDestination(created);
        await makeAlertRoundDue(tx);
        await recordAudit(tx, { actor: admin, kind: "alert_destination_created", after: destination });
        return { destination, signingSecret };
      }
      const existing = await tx.alertDestination.findUnique({ where: { id: input.id } });
      if (!existing) throw new AppError("not_found", "No such alert destination.");
      if (existing.kind !== input.kind) {
        throw new AppError("invalid_request", "A destination's kind cannot change; create another one.", {
          issues: [{ path: "kind", message: `this destination is a ${existing.kind} destination` }],
        });
      }
      const updated = await tx.alertDestination.update({
        where: { id: existing.id },
        data: {
          name: input.name,
          url,
          disabledAt: input.disabled ? (existing.disabledAt ?? disabledAt) : null,
        },
      });
      if (updated.disabledAt && !existing.disabledAt) await endOpenEpisodes(tx, { destinationId: existing.id });
      await makeAlertRoundDue(tx);
      const destination = publicDestination(updated);
      await recordAudit(tx, {
        actor: admin,
        kind: "alert_destination_updated",
        before: publicDestination(existing),
        after: destination,
      });
      return { destination, signingSecret: null };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AppError("conflict", "Another alert destination already has this name.", {
        issues: [{ path: "name", message: "already in use" }],
      });
    }
    throw error;
  }
}
