import { randomBytes } from "node:crypto";
import { createRecoveryClient, RecoveryApiError, type RecoveryClient, requestFingerprint } from "../sdk/src";

// The producing shop app of `npm run demo:traffic`, as functions: it starts its own (legitimate,
// paid-for) generations through the providers' create routes, runs into the usual trouble, and
// parks each ambiguous job in this app with its API key, through the producer SDK (sdk/): the sends
// whose answer it loses go through a send permit, so the app parks them itself. The soak run plays
// it in batches.

export type DemoShop = {
  appUrl: string;
  simulatorUrl: string;
  apiKey: string;
  simulatorToken?: string;
  /** How long to wait for delivery-bound jobs to finish before parking them as polling. */
  completionWaitMs?: number;
};

export const API_KEY_HINT = "Create a producer key with: npm run apikey:create -- --name demo-shop";
const COMPLETION_WAIT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 15_000;

type Provider = "replicate" | "fal";
type Scenario = "submission_uncertain" | "polling" | "delivery" | "generation_failed";
type Model = { provider: Provider; model: string; createPath: string; version?: string; priceMicros: number };
type Job = {
  index: number;
  scenario: Scenario;
  model: Model;
  operationId: string;
  input: Record<string, unknown>;
  submittedAt: string;
  providerJobId?: string;
  observed?: string;
  parkedStage?: Scenario;
  /** Sent under a send permit and reported unknown: the app parked it already. */
  parkedByPermit?: boolean;
};

const MODELS: Model[] = [
  {
    provider: "replicate",
    model: "minimax/video-01",
    createPath: "/replicate/v1/models/minimax/video-01/predictions",
    priceMicros: 500_000,
  },
  {
    provider: "fal",
    model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
    createPath: "/fal/fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
    priceMicros: 350_000,
  },
  {
    provider: "replicate",
    model: "kwaivgi/kling-v2.1",
    createPath: "/replicate/v1/predictions",
    version: `kwaivgi/kling-v2.1:${"5f1ce1d3".repeat(8)}`,
    priceMicros: 1_400_000,
  },
  {
    provider: "fal",
    model: "fal-ai/minimax/video-01-live",
    createPath: "/fal/fal-ai/minimax/video-01-live",
    priceMicros: 500_000,
  },
];
// Out of every ten orders: three polling, three delivery, two lost answers, two failed generations.
const PATTERN: Scenario[] = [
  "polling",
  "submission_uncertain",
  "delivery",
  "polling",
  "generation_failed",
  "delivery",
  "polling",
  "submission_uncertain",
  "delivery",
  "generation_failed",
];
const PROMPTS = [
  "a red fox running through fresh snow at dawn",
  "slow pan over a ceramic mug on a walnut desk, soft window light",
  "sneaker rotating on a turntable, studio backdrop",
  "waves rolling onto a pebble beach, drone shot",
  "steam rising from a cup of espresso, macro",
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const elapsed = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

class StopError extends Error {}

async function call(base: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined) headers.set("content-type", "application/json");
  try {
    return await fetch(`${base}${path}`, {
      ...rest,
      headers,
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
    throw new StopError(`cannot reach ${base} (${reason || String(error)}). Is \`npm start\` running?`);
  }
}

const simulatorAuth = (shop: DemoShop, provider: Provider): Record<string, string> =>
  shop.simulatorToken ? { authorization: `${provider === "fal" ? "Key" : "Bearer"} ${shop.simulatorToken}` } : {};

/**
 * The producer's own create call, exactly as it would go to the provider, with the webhook URL its
 * send permit named (Replicate takes it in the body, fal as `fal_webhook` on the submit).
 */
async function createAtProvider(
  shop: DemoShop,
  job: Job,
  webhookUrl?: string,
): Promise<{ id: string } | { lost: true }> {
  const { model } = job;
  const hook = webhookUrl ? { webhook: webhookUrl, webhook_events_filter: ["completed"] } : {};
  const body =
    model.provider === "fal"
      ? job.input
      : model.version
        ? { version: model.version, input: job.input, ...hook }
        : { input: job.input, ...hook };
  const path =
    model.provider === "fal" && webhookUrl
      ? `${model.createPath}?fal_webhook=${encodeURIComponent(webhookUrl)}`
      : model.createPath;
  const response = await call(shop.simulatorUrl, path, {
    method: "POST",
    headers: simulatorAuth(shop, model.provider),
    json: body,
  });
  if (job.scenario === "submission_uncertain") {
    // The provider accepted the job, but the shop never reads the answer: its client timed out.
    await response.body?.cancel();
    return { lost: true };
  }
  const answer = (await response.json().catch(() => null)) as { id?: string; request_id?: string } | null;
  const id = model.provider === "fal" ? answer?.request_id : answer?.id;
  if (!response.ok || !id) throw new StopError(`create at ${model.createPath} answered ${response.status}`);
  return { id };
}

/** A generation that the provider will report as failed (the simulator's control plane makes one). */
async function failingJob(shop: DemoShop, job: Job): Promise<string> {
  const response = await call(shop.simulatorUrl, "/__admin/jobs", {
    method: "POST",
    headers: simulatorAuth(shop, "replicate"),
    json: {
      provider: job.model.provider,
      model: job.model.model,
      input: job.input,
      outcome: "failed",
      queuedMs: 0,
      runningMs: 0,
      error: "Content policy violation: the prompt was flagged",
      errorOnStatus: true,
    },
  });
  const answer = (await response.json().catch(() => null)) as { id?: string } | null;
  if (!response.ok || !answer?.id) throw new StopError(`seeding a failing job answered ${response.status}`);
  return answer.id;
}

/** One status read through the provider's own status route; returns the raw status word. */
async function readStatus(shop: DemoShop, job: Job): Promise<string> {
  const { provider, model } = job.model;
  const path =
    provider === "fal"
      ? `/fal/${model.split("/").slice(0, 2).join("/")}/requests/${job.providerJobId}/status`
      : `/replicate/v1/predictions/${job.providerJobId}`;
  const response = await call(shop.simulatorUrl, path, { headers: simulatorAuth(shop, provider) });
  const answer = (await response.json().catch(() => null)) as { status?: string; error?: string } | null;
  if (!answer?.status) return `HTTP ${response.status}`;
  if (provider === "fal" && answer.status === "COMPLETED" && answer.error) return "failed";
  return answer.status;
}

const isDone = (status: string) => status === "succeeded" || status === "COMPLETED";

const EVIDENCE: Record<Scenario, (job: Job) => string> = {
  submission_uncertain: () => "create request timed out after acceptance; no job id was returned",
  polling: () => "status checks failed 5 times in a row (HTTP 502 from the provider); giving up on polling",
  delivery: (job) => `job ${job.observed ?? "completed"}, but downloading the output failed (HTTP 403, URL expired)`,
  generation_failed: (job) => `the provider reports the job as ${job.observed ?? "failed"}: content policy violation`,
};

async function park(
  shop: DemoShop,
  recovery: RecoveryClient,
  job: Job,
  stage: Scenario,
): Promise<"created" | "existing"> {
  const body = {
    operationId: job.operationId,
    attemptId: `${job.operationId}-a1`,
    stage,
    provider: job.model.provider,
    model: job.model.model,
    ...(stage === "submission_uncertain" ? {} : { providerJobId: job.providerJobId }),
    requestFingerprint: requestFingerprint(job.input),
    request: { prompt: job.input.prompt, duration_seconds: job.input.duration, aspect_ratio: job.input.aspect_ratio },
    evidence: {
      summary: EVIDENCE[stage](job),
      observedAt: new Date().toISOString(),
      source: "demo-traffic",
      ...(job.observed ? { details: { providerStatus: job.observed } } : {}),
    },
    counters: { pollAttempts: stage === "polling" ? 5 : 1, deliveryAttempts: stage === "delivery" ? 3 : 0 },
    submittedAt: job.submittedAt,
    hold: { holdId: `hold-${job.operationId}`, amountMicros: job.model.priceMicros, currency: "USD" },
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return (await recovery.park(body)).created ? "created" : "existing";
    } catch (error) {
      if (!(error instanceof RecoveryApiError)) throw unreachable(shop, error);
      if (error.status === 429 && attempt < 5) {
        await sleep(2_000); // the app limits each key per minute; a short pause is enough for a demo
        continue;
      }
      const reason = `${error.status} ${error.code} ${error.message}`;
      if (error.status === 401 || error.status === 403)
        throw new StopError(`the app refused the API key: ${reason}. ${API_KEY_HINT}`);
      throw new StopError(`parking ${job.operationId} failed: ${reason}`);
    }
  }
}

function unreachable(shop: DemoShop, error: unknown): StopError {
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
  return new StopError(`cannot reach ${shop.appUrl} (${reason || String(error)}). Is \`npm start\` running?`);
}

/**
 * A send whose answer the shop loses, the safe way: a permit first, the create once, and the lost
 * answer reported as unknown, so the app parks the send as an uncertain submission by itself. The
 * provider's own webhook, sent to the URL the permit named, later attaches the job to that case.
 */
async function sendLosingTheAnswer(shop: DemoShop, recovery: RecoveryClient, job: Job): Promise<void> {
  const result = await recovery
    .submit(sendOf(job), async ({ webhookUrl }) => {
      await createAtProvider(shop, job, webhookUrl);
      throw new Error(`no answer from ${job.model.provider} within ${REQUEST_TIMEOUT_MS / 1000} s`);
    })
    .catch((error: unknown) => {
      throw error instanceof RecoveryApiError
        ? new StopError(`the app refused the permit: ${error.message}`)
        : unreachable(shop, error);
    });
  if (!result.sent) throw new StopError(`no permit for ${job.operationId}: ${result.answer.status}`);
  job.parkedByPermit = result.outcome === "unknown";
}

function sendOf(job: Job) {
  return {
    operationId: job.operationId,
    attemptId: `${job.operationId}-a1`,
    requestFingerprint: requestFingerprint(job.input),
    provider: job.model.provider,
    model: job.model.model,
    hold: { holdId: `hold-${job.operationId}`, amountMicros: job.model.priceMicros, currency: "USD" },
    request: { prompt: job.input.prompt, duration_seconds: job.input.duration, aspect_ratio: job.input.aspect_ratio },
  };
}

/** Before buying anything, make sure the app is up and accepts the key (a read-only producer route). */
async function checkApp(shop: DemoShop): Promise<void> {
  const response = await call(shop.appUrl, "/api/v1/replacements", {
    headers: { authorization: `Bearer ${shop.apiKey}` },
  });
  await response.body?.cancel();
  if (response.status === 401 || response.status === 403)
    throw new StopError(`the app refused the API key (HTTP ${response.status}). ${API_KEY_HINT}`);
  if (!response.ok)
    throw new StopError(`the app answered HTTP ${response.status} at ${shop.appUrl}/api/v1/replacements`);
}

/**
 * One batch of `count` orders: submit each at the provider, watch the ones that must finish or
 * fail first, then park every ambiguous job here. Progress goes to `log`, one line per stage.
 */
export async function runDemoOrders(shop: DemoShop, count: number, log: (line: string) => void) {
  const run = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  log(`${count} orders against ${shop.simulatorUrl} (provider) and ${shop.appUrl} (app), run ${run}`);
  await checkApp(shop);
  const recovery = createRecoveryClient({ baseUrl: shop.appUrl, apiKey: shop.apiKey, timeoutMs: REQUEST_TIMEOUT_MS });
  const jobs: Job[] = Array.from({ length: count }, (_, index) => {
    // Shifted every ten orders so that each scenario meets every model.
    const model = MODELS[(index + Math.floor(index / PATTERN.length)) % MODELS.length] as Model;
    const input = {
      prompt: `${PROMPTS[index % PROMPTS.length]} (order ${run}-${index})`,
      duration: 5 + (index % 2) * 5,
      aspect_ratio: index % 3 === 0 ? "9:16" : "16:9",
    };
    return {
      index,
      scenario: PATTERN[index % PATTERN.length] as Scenario,
      model,
      operationId: `demo-${run}-${String(index).padStart(4, "0")}`,
      input,
      submittedAt: new Date().toISOString(),
    };
  });

  // Stage 1: submit. The shop's own generations, one create call each (failures come pre-seeded).
  let stage = Date.now();
  let lost = 0;
  let seededFailures = 0;
  for (const job of jobs) {
    job.submittedAt = new Date().toISOString();
    if (job.scenario === "generation_failed") {
      job.providerJobId = await failingJob(shop, job);
      seededFailures += 1;
      continue;
    }
    if (job.scenario === "submission_uncertain") {
      await sendLosingTheAnswer(shop, recovery, job);
      lost += 1;
      continue;
    }
    const created = await createAtProvider(shop, job);
    if (!("lost" in created)) job.providerJobId = created.id;
  }
  const creates = jobs.length - seededFailures;
  log(
    `submit: ${creates} create calls (${lost} answers lost after acceptance), ${seededFailures} failing jobs seeded, ${elapsed(stage)}`,
  );

  // Stage 2: watch. Delivery-bound jobs must finish before a download can fail; failures are read back.
  stage = Date.now();
  const watched = jobs.filter((job) => job.scenario === "delivery" || job.scenario === "generation_failed");
  const until = Date.now() + (shop.completionWaitMs ?? COMPLETION_WAIT_MS);
  let open = watched;
  while (open.length > 0) {
    for (const job of open) {
      const status = await readStatus(shop, job);
      if (job.scenario === "generation_failed" || isDone(status)) job.observed = status;
    }
    open = open.filter((job) => job.observed === undefined);
    if (open.length === 0 || Date.now() > until) break;
    await sleep(1_000);
  }
  for (const job of open) job.parkedStage = "polling";
  const completed = watched.filter((j) => j.scenario === "delivery" && j.observed !== undefined).length;
  log(
    `watch: ${completed} completed, ${watched.length - open.length - completed} failures confirmed, ${open.length} still running (parked as polling), ${elapsed(stage)}`,
  );

  // Stage 3: park every ambiguous job in the dead-letter queue.
  stage = Date.now();
  const byStage: Record<Scenario, number> = { submission_uncertain: 0, polling: 0, delivery: 0, generation_failed: 0 };
  let existing = 0;
  for (const job of jobs) {
    const target = job.parkedStage ?? job.scenario;
    if (!job.parkedByPermit && (await park(shop, recovery, job, target)) === "existing") existing += 1;
    byStage[target] += 1;
  }
  const held = jobs.reduce((sum, job) => sum + job.model.priceMicros, 0);
  log(
    `park: ${jobs.length - existing} new cases (${existing} already parked) — uncertain ${byStage.submission_uncertain}, polling ${byStage.polling}, delivery ${byStage.delivery}, failed ${byStage.generation_failed}; $${(held / 1_000_000).toFixed(2)} on hold, ${elapsed(stage)}`,
  );
  return { run, orders: jobs.length, parked: jobs.length - existing, creates, byStage };
}
