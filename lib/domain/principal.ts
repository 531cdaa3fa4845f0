import type { ProducerScope } from "./producer-scope";
import type { Role } from "./roles";

/** Who is acting. Services take it from authentication, never from a request body. */
export type Principal =
  /** `producers`: the producers this person works for, null for every one (decision 035). */
  | { kind: "user"; userId: string; email: string; name: string; roles: Role[]; producers: ProducerScope }
  | { kind: "api_key"; apiKeyId: string; name: string }
  | { kind: "worker"; tokenId: string; name: string; workerId: string }
  /** A provider speaking through a webhook whose signature was verified; `webhookId` is its own event ID. */
  | { kind: "provider"; provider: string; webhookId: string; signedAt: string };

/** How an audit row, a ledger entry or a decision names who acted: a kind, a stable ID and a label people read. */
export function actorColumns(actor: Principal) {
  switch (actor.kind) {
    case "user":
      return { actorKind: "user" as const, actorId: actor.userId, actorLabel: actor.email };
    case "api_key":
      return { actorKind: "api_key" as const, actorId: actor.apiKeyId, actorLabel: `api key ${actor.name}` };
    case "worker":
      return { actorKind: "worker" as const, actorId: actor.tokenId, actorLabel: `worker ${actor.workerId}` };
    case "provider":
      return {
        actorKind: "system" as const,
        actorId: `${actor.provider}-webhook:${actor.webhookId}`,
        actorLabel: `${actor.provider} webhook (signature verified)`,
      };
  }
}
