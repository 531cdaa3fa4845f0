/** Something a person, the producer or the world does at a logical time, for one operation. */
export type ScheduledEvent = {
  at: number;
  operation: number;
  kind:
    | "arrive"
    | "park"
    | "comeback"
    | "review"
    | "finance"
    | "replacements"
    | "storm_start"
    | "storm_end"
    | "permit_restart"
    | "permit_poll"
    | "permit_resend"
    | "provider_webhook";
  seq: number;
};

/**
 * A binary heap ordered by (time, operation, insertion): the order in which simultaneous events
 * run is part of the seed's replay, so it never depends on anything but these three numbers.
 */
export class Schedule {
  private heap: ScheduledEvent[] = [];
  private seq = 0;

  add(at: number, operation: number, kind: ScheduledEvent["kind"]): void {
    this.heap.push({ at, operation, kind, seq: this.seq++ });
    let i = this.heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(this.at(i), this.at(parent))) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  peekTime(): number | null {
    return this.heap[0]?.at ?? null;
  }

  /** Removes and returns the next event due at or before `now`. */
  takeDue(now: number): ScheduledEvent | null {
    const top = this.heap[0];
    if (!top || top.at > now) return null;
    const last = this.heap.pop() as ScheduledEvent;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < this.heap.length && before(this.at(left), this.at(smallest))) smallest = left;
        if (right < this.heap.length && before(this.at(right), this.at(smallest))) smallest = right;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  get size(): number {
    return this.heap.length;
  }

  private at(i: number): ScheduledEvent {
    return this.heap[i] as ScheduledEvent;
  }

  private swap(a: number, b: number): void {
    const x = this.at(a);
    this.heap[a] = this.at(b);
    this.heap[b] = x;
  }
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.operation !== b.operation) return a.operation < b.operation;
  return a.seq < b.seq;
}
