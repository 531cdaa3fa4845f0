/** One JSON line per worker step, with the case, action and fencing token when there is one. */
export function workerLog(fields: Record<string, unknown>): void {
  if (process.env.WORKER_LOG === "0") return;
  console.log(JSON.stringify({ time: new Date().toISOString(), level: "info", component: "worker", ...fields }));
}
