import autocannon from "autocannon";

/** One request of a load: its path, JSON body and headers. */
export type LoadRequest = { path: string; body: string; headers: Record<string, string> };
export type LoadResult = {
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
};

/**
 * POSTs every request once over `connections` keep-alive connections (autocannon), counting the
 * answers by status; connection errors are counted under `connection_error`.
 */
export async function postLoad(url: string, requests: LoadRequest[], connections: number): Promise<LoadResult> {
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const result = await autocannon({
    url,
    connections,
    amount: requests.length,
    timeout: 30,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => {
          const r = requests[next++ % requests.length] as LoadRequest;
          return {
            ...request,
            path: r.path,
            body: r.body,
            headers: { ...r.headers, "content-type": "application/json" },
          };
        },
        onResponse: (status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
      },
    ],
  });
  const seconds = (performance.now() - started) / 1000;
  const count = Object.values(statuses).reduce((a, b) => a + b, 0);
  if (result.errors > 0) statuses.connection_error = result.errors;
  return { count, seconds, perSecond: count / seconds, p50Ms: result.latency.p50, p99Ms: result.latency.p99, statuses };
}
