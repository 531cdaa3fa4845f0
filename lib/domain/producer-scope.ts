import type { Principal } from "./principal";

/**
 * The producers a person works for (decision 035): `null` is every producer, a list is exactly
 * those. An agency that runs several shops gives its people the shops they look after; outside
 * them a case does not exist for that person, and every list and figure leaves it out.
 */
export type ProducerScope = readonly string[] | null;

/** Scope as stored: an empty list on the user row means every producer. */
export function scopeFromColumn(column: readonly string[] | null | undefined): ProducerScope {
  return column && column.length > 0 ? [...column] : null;
}

/**
 * The producers `actor` may see and change: a person's scope as loaded for this very request
 * (decision 054: never the scope a dry run or an earlier page saw); null for every producer, and for
 * machines, which are scoped otherwise (a key to its producer, a worker to its claims).
 */
export function scopeOf(actor: Principal): ProducerScope {
  return actor.kind === "user" ? actor.producers : null;
}

export function inProducerScope(scope: ProducerScope, producer: string): boolean {
  return scope === null || scope.includes(producer);
}

/**
 * What a reader may see of the producers a request asks for: the request within the scope. An
 * empty list means nothing (a scoped person asking for another producer's figures gets none).
 */
export function withinScope(scope: ProducerScope, requested: readonly string[] | null): string[] | null {
  if (scope === null) return requested ? [...requested] : null;
  if (requested === null) return [...scope];
  return requested.filter((producer) => scope.includes(producer));
}
