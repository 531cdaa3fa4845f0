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
