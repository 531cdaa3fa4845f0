import { startSimulator } from "../verification/simulator";

// Local stand-in for Replicate (/replicate/v1/...) and fal (/fal/..., /fal-platform/v1/...).
// SIMULATOR_PORT (default 4010; when taken, the next free one of the following 19; 0 for any),
// SIMULATOR_HOST (default 127.0.0.1), SIMULATOR_TOKEN (optional; required by production's
// PROVIDER_MODE=simulator), SIMULATOR_QUEUED_MS / SIMULATOR_RUNNING_MS (how long jobs queue and run),
// SIMULATOR_REPLICATE_WEBHOOK_SECRET (the whsec_ secret its Replicate webhooks are signed with).
// Started by the launcher, it reports the address it actually bound over IPC.
function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`[simulator] ${name} must be a non-negative integer, got "${raw}"`);
    process.exit(1);
  }
  return value;
}

const timings = {
  queuedMs: integer("SIMULATOR_QUEUED_MS", 2_000),
  runningMs: integer("SIMULATOR_RUNNING_MS", 8_000),
};
const simulator = await startSimulator({
  port: integer("SIMULATOR_PORT", 4010),
  portAttempts: 20,
  host: process.env.SIMULATOR_HOST || "127.0.0.1",
  token: process.env.SIMULATOR_TOKEN || undefined,
  timings,
  replicateWebhookSecret: process.env.SIMULATOR_REPLICATE_WEBHOOK_SECRET || undefined,
});

console.log(`[simulator] listening on ${simulator.url}`);
process.send?.({ kind: "listening", url: simulator.url });
console.log(
  `[simulator] Replicate base URL ${simulator.url}/replicate, fal base URL ${simulator.url}/fal, Runway base URL ${simulator.url}/runway, Veo (Gemini API) base URL ${simulator.url}/veo/v1beta`,
);
console.log(`[simulator] Luma base URL ${simulator.url}/luma/dream-machine/v1`);
console.log(`[simulator] admin: ${simulator.url}/__admin/stats, POST /__admin/faults, /__admin/jobs, /__admin/reset`);
console.log(
  `[simulator] signed webhooks: fal keys at ${simulator.webhooks.falJwksUrl}, POST /__admin/webhooks for faults`,
);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  void simulator.stop().then(() => process.exit(0));
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, stop);
// A launcher that died without stopping it leaves no simulator behind.
if (process.connected) process.on("disconnect", stop);
