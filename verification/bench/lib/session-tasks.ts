import pg from "pg";

export type SessionTask = {
  label: string;
  sql: string;
  /** Labels of the tasks that must have finished before this one starts. */
  after?: string[];
  rows?: (rows: Record<string, unknown>[]) => void;
};

/**
 * Runs SQL tasks in `sessions` database sessions at once: each session takes the first task, in the
 * given order, whose `after` tasks are all done, so a table's indexes start as soon as its rows are
 * in while the other session still loads. After the first failure no session starts another task.
 */
export async function runSessionTasks(
  databaseUrl: string,
  tasks: SessionTask[],
  options: { sessions: number; setup: string[]; done: (label: string, seconds: number) => void },
): Promise<void> {
  assertRunnable(tasks);
  const pending = [...tasks];
  const done = new Set<string>();
  let failed = false;
  let wake = () => {};
  let changed = new Promise<void>((resolve) => (wake = resolve));
  const signal = () => {
    const previous = wake;
    changed = new Promise<void>((resolve) => (wake = resolve));
    previous();
  };
  const session = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await client.connect();
      for (const statement of options.setup) await client.query(statement);
      while (!failed && pending.length > 0) {
        const index = pending.findIndex((task) => (task.after ?? []).every((label) => done.has(label)));
        const task = index < 0 ? undefined : pending.splice(index, 1)[0];
        if (!task) {
          await changed;
          continue;
        }
        const at = performance.now();
        const result = await client.query(task.sql);
        task.rows?.(result.rows);
        done.add(task.label);
        options.done(task.label, (performance.now() - at) / 1000);
        signal();
      }
    } catch (error) {
      failed = true;
      signal();
      throw error;
    } finally {
      await client.end();
    }
  };
  // Every session settles before the first failure is reported, so nothing still runs after it.
  const outcomes = await Promise.allSettled(Array.from({ length: options.sessions }, session));
  const failure = outcomes.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
}

/** Every label once, every `after` a label, no cycle: otherwise the sessions would wait forever. */
function assertRunnable(tasks: SessionTask[]) {
  const labels = new Set(tasks.map((task) => task.label));
  if (labels.size !== tasks.length) throw new Error("task labels repeat");
  const ordered = new Set<string>();
  let left = tasks;
  while (left.length > 0) {
    const ready = left.filter((task) => (task.after ?? []).every((label) => ordered.has(label)));
    if (ready.length === 0) throw new Error(`tasks that can never start: ${left.map((task) => task.label).join(", ")}`);
    for (const task of ready) ordered.add(task.label);
    left = left.filter((task) => !ordered.has(task.label));
  }
}
