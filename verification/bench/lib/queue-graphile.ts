import { Logger, run, runMigrations } from "graphile-worker";
import { sql } from "./queue-seed";

const silent = new Logger(() => () => {});

/** graphile-worker's schema in `url` and `count` no-op jobs, enqueued in one `add_jobs` call. */
export async function enqueueGraphileJobs(url: string, count: number): Promise<void> {
  await runMigrations({ connectionString: url, logger: silent });
  await sql(
    url,
    `SELECT count(*) FROM graphile_worker.add_jobs(
       array(SELECT ('noop', '{}'::json, NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec
             FROM generate_series(1, $1::int)))`,
    [count],
  );
  await sql(url, "VACUUM ANALYZE");
}

/**
 * graphile-worker with default settings and a no-op task, timed from starting the runner until
 * every job has succeeded and its row is gone.
 */
export async function runGraphile(
  url: string,
  input: { count: number; concurrency: number },
): Promise<{ seconds: number; successes: number; left: number }> {
  let successes = 0;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const started = performance.now();
  const runner = await run({
    connectionString: url,
    concurrency: input.concurrency,
    noHandleSignals: true,
    logger: silent,
    taskList: { noop: async () => {} },
  });
  runner.events.on("job:success", () => {
    successes += 1;
    if (successes === input.count) resolveDone();
  });
  await Promise.race([done, runner.promise]);
  // Completions are sent without waiting for them; the clock stops when the last row is gone.
  const left = async () =>
    Number((await sql<{ left: string }>(url, "SELECT count(*) AS left FROM graphile_worker._private_jobs"))[0]?.left);
  for (let wait = 0; wait < 100 && (await left()) > 0; wait++) await new Promise((r) => setTimeout(r, 10));
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  return { seconds, successes, left: await left() };
}
