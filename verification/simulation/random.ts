import { createHash } from "node:crypto";

/** A 32-bit seed derived from any parts, so every operation gets its own stream from the run's seed. */
export function seedOf(...parts: (string | number)[]): number {
  return createHash("sha256").update(parts.join("\u0000")).digest().readUInt32LE(0);
}

/**
 * mulberry32: tiny, fast and good enough for choosing faults. Every decision in a run is drawn
 * from one of these, in an order fixed by the sequential schedule, so a seed replays a run.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Picks by weight: `[["a", 3], ["b", 1]]` returns "a" three times as often as "b". */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
    let roll = this.next() * total;
    for (const [value, weight] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    const last = choices.at(-1);
    if (!last) throw new Error("weighted pick from an empty list");
    return last[0];
  }
}
