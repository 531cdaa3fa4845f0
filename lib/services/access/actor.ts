import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf, withinScope } from "@/lib/domain/producer-scope";
import { can, type Permission } from "@/lib/domain/roles";
import { AppError } from "@/lib/errors";

export type UserActor = Extract<Principal, { kind: "user" }>;
export type ProducerActor = Extract<Principal, { kind: "api_key" }>;
export type WorkerActor = Extract<Principal, { kind: "worker" }>;
export type ProviderActor = Extract<Principal, { kind: "provider" }>;

/** Every service checks the principal itself, so no caller can skip authorisation. */
export function requirePermission(actor: Principal, permission: Permission): UserActor {
  if (actor.kind !== "user") throw new AppError("forbidden", "This needs a signed-in user.");
  if (!can(actor.roles, permission)) throw new AppError("forbidden", "Your roles do not allow this.");
  return actor;
}

/** The producers a read asks for (null: every one), narrowed to the ones `actor` may see. */
export function visibleProducers(actor: Principal, requested: readonly string[] | null): string[] | null {
  return withinScope(scopeOf(actor), requested);
}

/**
 * Outside a person's producers, a case (or its hold, or its replacement) does not exist for them:
 * the same `not_found` as a wrong ID, so a scoped person cannot learn that another shop's ID exists.
 */
export function requireCaseInScope(actor: Principal, producer: string, what = "case"): void {
  if (!inProducerScope(scopeOf(actor), producer)) throw new AppError("not_found", `No such ${what}.`);
}

/** Deployment-wide pages and settings (alerts, admin) are for people who see every producer. */
export function requireUnscoped(user: UserActor): UserActor {
  if (user.producers !== null)
    throw new AppError("forbidden", "This covers every producer; your access is limited to some.");
  return user;
}

export function requireProducer(actor: Principal): ProducerActor {
  if (actor.kind !== "api_key") throw new AppError("forbidden", "This needs a producer API key.");
  return actor;
}

export function requireWorker(actor: Principal): WorkerActor {
  if (actor.kind !== "worker") throw new AppError("forbidden", "This needs a worker token.");
  return actor;
}

export function requireProvider(actor: Principal): ProviderActor {
  if (actor.kind !== "provider") throw new AppError("forbidden", "Only a provider's signed webhook may do this.");
  return actor;
}
