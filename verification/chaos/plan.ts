export type ChaosEvent = { atProgress: number; target: "worker" | "server" | "postgres" };

/**
 * When the killer strikes, as fractions of the work done (so the plan spreads over the run
 * whatever the machine's speed): worker and server kills anywhere between 2% and 95%, and the
 * one PostgreSQL restart somewhere in the middle third.
 */
export function chaosPlan(random: () => number, input: { workerKills: number; serverKills: number }): ChaosEvent[] {
  const anywhere = () => 0.02 + random() * 0.93;
  const events: ChaosEvent[] = [
    ...Array.from({ length: input.workerKills }, () => ({ atProgress: anywhere(), target: "worker" as const })),
    ...Array.from({ length: input.serverKills }, () => ({ atProgress: anywhere(), target: "server" as const })),
    { atProgress: 0.33 + random() * 0.33, target: "postgres" },
  ];
  return events.sort((a, b) => a.atProgress - b.atProgress);
}
