import { z } from "zod";
import { API_KEY_HINT, runDemoOrders } from "./demo-shop";

// npm run demo:traffic: plays a producing shop app against the provider simulator and this app.
// It starts its own (legitimate, paid-for) generations through the providers' create routes, runs
// into the usual trouble, and parks each ambiguous job here with its API key:
//   - a create whose answer is lost (timeout after acceptance): `submission_uncertain`, no job id
//   - a job whose status checks kept failing: `polling`, with the job id
//   - a finished job whose download failed: `delivery`, with the job id
//   - a job the provider reports as failed: `generation_failed`, with the job id
// Env: APP_URL (http://localhost:3000), SIMULATOR_URL (http://127.0.0.1:4010), API_KEY (vrk_…),
// COUNT (30, at most 1000), SIMULATOR_TOKEN (only when the simulator was started with one).
// It talks to those two loopback URLs only, and stops by itself.

const isLoopback = (raw: string) => {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
};
const loopbackUrl = (fallback: string) =>
  z
    .url()
    .default(fallback)
    .refine((value) => /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL")
    .refine(isLoopback, "must point at this machine (localhost, 127.0.0.1 or ::1)")
    .transform((value) => value.replace(/\/+$/, ""));

if (!process.env.API_KEY) {
  console.error(`[demo-traffic] API_KEY is not set.\n${API_KEY_HINT}\nthen run: API_KEY=vrk_… npm run demo:traffic`);
  process.exit(2);
}
const parsed = z
  .object({
    APP_URL: loopbackUrl("http://localhost:3000"),
    SIMULATOR_URL: loopbackUrl("http://127.0.0.1:4010"),
    API_KEY: z.string().trim().startsWith("vrk_", `a producer API key starts with "vrk_". ${API_KEY_HINT}`),
    COUNT: z.coerce.number().int().min(1).max(1000).default(30),
    SIMULATOR_TOKEN: z.string().optional(),
  })
  .safeParse(process.env);
if (!parsed.success) {
  console.error(`[demo-traffic] ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  process.exit(2);
}
const { APP_URL, SIMULATOR_URL, API_KEY, COUNT, SIMULATOR_TOKEN } = parsed.data;

async function main() {
  const shop = { appUrl: APP_URL, simulatorUrl: SIMULATOR_URL, apiKey: API_KEY, simulatorToken: SIMULATOR_TOKEN };
  const started = Date.now();
  await runDemoOrders(shop, COUNT, (line) => console.log(`[demo-traffic] ${line}`));
  console.log(`[demo-traffic] done in ${((Date.now() - started) / 1000).toFixed(1)} s: triage them at ${APP_URL}`);
}

try {
  await main();
} catch (error) {
  console.error(`[demo-traffic] stopped: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
