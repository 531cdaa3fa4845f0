import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { PrismaClient } from "../../../lib/db/generated/prisma/client";
import { statementNamer } from "../../../lib/db/statement-names";

export type Timing = { p50: number; p95: number; runs: number };

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), runs: sorted.length };
}

/**
 * Runs `a` and `b` alternately (after a few unmeasured rounds), so both see the same machine: on a
 * shared box a burst of someone else's work then lands on both sides instead of one.
 */
export async function timeSideBySide(
  runs: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Timing, Timing]> {
  for (let i = 0; i < 5; i++) {
    await a();
    await b();
  }
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [work, samples] of (i % 2 === 0
      ? [
          [a, first],
          [b, second],
        ]
      : [
          [b, second],
          [a, first],
        ]) as [() => Promise<unknown>, number[]][]) {
      const at = performance.now();
      await work();
      samples.push(performance.now() - at);
    }
  }
  return [timing(first), timing(second)];
}

export async function timeAlone(runs: number, work: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < 3; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const at = performance.now();
    await work();
    samples.push(performance.now() - at);
  }
  return timing(samples);
}

type Captured = { query: string; params: string };

/**
 * The SQL a service sends, caught from Prisma's query log on a client of its own, so the raw
 * baseline replays exactly the same statements with the same parameters over plain pg. The
 * readers' occasional "are there deltas to fold" look is left out: it is not part of a page's read.
 */
export async function capturedSql(
  databaseUrl: string,
  run: (db: PrismaClient) => Promise<unknown>,
): Promise<{ text: string; values: unknown[] }[]> {
  const logging = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: 4 }),
    log: [{ emit: "event", level: "query" }],
  });
  const seen: Captured[] = [];
  logging.$on("query", (event) => seen.push({ query: event.query, params: event.params }));
  try {
    await run(logging);
    seen.length = 0;
    await run(logging);
    return seen
      .filter((q) => !/FROM stat_deltas LIMIT/.test(q.query))
      .map((q) => ({ text: q.query, values: JSON.parse(q.params) as unknown[] }));
  } finally {
    await logging.$disconnect();
  }
}

const statementName = statementNamer();

/** The captured statements sent as the service sends them: together, over a pool, prepared. */
export function replay(pool: pg.Pool, statements: { text: string; values: unknown[] }[]): () => Promise<unknown> {
  return () =>
    Promise.all(statements.map(({ text, values }) => pool.query({ name: statementName({ sql: text }), text, values })));
}
