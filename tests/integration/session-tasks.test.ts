import { beforeEach, describe, expect, it } from "vitest";
import { runSessionTasks, type SessionTask } from "@/verification/bench/lib/session-tasks";
import { openOwnerDb } from "./setup/test-db";

// As the owner: this file creates probe tables of its own, which the app role may not.
const { db, url } = openOwnerDb();
const setup = ["SET application_name = 'session-tasks-test'"];

type Mark = { label: string; edge: "start" | "end"; at: Date; pid: number };

// A task that marks its start and end (on the database's clock) and takes `seconds` in between.
const timed = (label: string, seconds: number, after?: string[]): SessionTask => ({
  label,
  after,
  sql: `INSERT INTO task_marks VALUES ('${label}', 'start', clock_timestamp(), pg_backend_pid());
        SELECT pg_sleep(${seconds});
        INSERT INTO task_marks VALUES ('${label}', 'end', clock_timestamp(), pg_backend_pid())`,
});

async function marks(): Promise<Map<string, { start: Date; end: Date; pid: number }>> {
  const rows = await db.$queryRaw<Mark[]>`SELECT label, edge, at, pid FROM task_marks`;
  const byLabel = new Map<string, { start: Date; end: Date; pid: number }>();
  for (const row of rows) {
    const entry = byLabel.get(row.label) ?? { start: row.at, end: row.at, pid: row.pid };
    entry[row.edge] = row.at;
    byLabel.set(row.label, entry);
  }
  return byLabel;
}

describe("SQL tasks shared by sessions, each after what it depends on", () => {
  beforeEach(async () => {
    await db.$executeRawUnsafe(
      "CREATE TABLE IF NOT EXISTS task_marks (label text, edge text, at timestamptz, pid int)",
    );
    await db.$executeRawUnsafe("DELETE FROM task_marks");
  });

  it("runs independent tasks at once and a dependent one only after all it names", async () => {
    const done: string[] = [];
    await runSessionTasks(url, [timed("a", 0.4), timed("b", 0.4), timed("c", 0, ["a", "b"])], {
      sessions: 2,
      setup,
      done: (label) => done.push(label),
    });
    const seen = await marks();
    const [a, b, c] = [seen.get("a"), seen.get("b"), seen.get("c")];
    expect(done.sort()).toEqual(["a", "b", "c"]);
    expect(a && b && c).toBeTruthy();
    if (!a || !b || !c) return;
    expect(a.pid).not.toBe(b.pid);
    expect(a.start.getTime()).toBeLessThan(b.end.getTime());
    expect(b.start.getTime()).toBeLessThan(a.end.getTime());
    expect(c.start.getTime()).toBeGreaterThanOrEqual(Math.max(a.end.getTime(), b.end.getTime()));
  });

  it("hands each row of a task's answer to it and runs the session setup first", async () => {
    let rows: Record<string, unknown>[] = [];
    const task = {
      label: "who",
      sql: "SELECT current_setting('application_name') AS name",
      rows: (r: typeof rows) => (rows = r),
    };
    await runSessionTasks(url, [task], { sessions: 2, setup, done: () => {} });
    expect(rows).toEqual([{ name: "session-tasks-test" }]);
  });

  it("stops every session at the first failure and starts nothing after it", async () => {
    const tasks = [timed("slow", 0.3), { label: "bad", sql: "SELECT 1 / 0" }, timed("later", 0, ["slow", "bad"])];
    await expect(runSessionTasks(url, tasks, { sessions: 2, setup, done: () => {} })).rejects.toThrow(
      /division by zero/,
    );
    const seen = await marks();
    expect(seen.has("later")).toBe(false);
    expect(seen.get("slow")?.end).toBeDefined();
  });

  it("fails, rather than waits, when a session cannot connect", async () => {
    const closed = new URL(url);
    closed.port = "1";
    await expect(
      runSessionTasks(closed.toString(), [timed("never", 0)], { sessions: 2, setup, done: () => {} }),
    ).rejects.toThrow(/ECONNREFUSED|connect/);
    expect((await marks()).size).toBe(0);
  });

  it("refuses, and runs nothing of, a list that could never finish", async () => {
    const cycle = [timed("x", 0, ["y"]), timed("y", 0, ["x"])];
    const unknown = [timed("z", 0, ["nowhere"])];
    const twice = [timed("w", 0), timed("w", 0)];
    for (const tasks of [cycle, unknown, twice]) {
      await expect(runSessionTasks(url, tasks, { sessions: 2, setup, done: () => {} })).rejects.toThrow(
        /never start|repeat/,
      );
    }
    expect((await marks()).size).toBe(0);
  });
});
