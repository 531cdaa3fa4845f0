import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import { requirePermission } from "../access/actor";

/**
 * Who may change which notification endpoint. An admin any producer's, named in the request (the
 * console); a producer's API key its own only, the producer being the key's name (decision 003)
 * whatever the request says (the API). `actor` is who the audit row names; `ownProducer` is null
 * for an admin.
 */
export function endpointManager(actor: Principal): { actor: Principal; ownProducer: string | null } {
  if (actor.kind === "api_key") return { actor, ownProducer: actor.name };
  return { actor: requirePermission(actor, "admin:api_keys"), ownProducer: null };
}

/** A producer's own endpoint answers not_found alike whether it was never registered or is another's. */
export const NO_OWN_ENDPOINT = "No notification endpoint is registered for this producer.";

/** An admin names what they change (the endpoint or the producer); a request naming none is refused. */
export function namedByAdmin(value: string | undefined, field: "endpointId" | "producer"): string {
  if (!value)
    throw new AppError("invalid_request", "Check the highlighted fields.", {
      issues: [{ path: field, message: "required" }],
    });
  return value;
}
