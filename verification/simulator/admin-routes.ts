import { z } from "zod";
import { PROVIDER_NAMES } from "../../lib/providers/registry";
import { costOf, setPrice } from "./costs";
import { RateLimiter, ruleSchema } from "./faults";
import { completedAt, phaseOf, type SimJob } from "./jobs";
import { providerJobIdOf } from "./providers";
import { type RouteContext, readJson, sendJson } from "./respond";
import { outputUrlOf } from "./routes";
import { usageExport } from "./usage-export";

/**
 * Control plane for demos and tests (not part of either provider's API, never rate-limited, faulted
 * or logged): POST /__admin/faults, GET /__admin/stats, POST /__admin/reset, POST /__admin/jobs,
 * GET /__admin/jobs/{id}, POST /__admin/webhooks (webhook faults), GET /__admin/webhooks (what was sent),
 * POST /__admin/prices (the price table, ./costs.ts), GET /__admin/usage/{provider} (the account's
 * usage export in that provider's shape, ./usage-export.ts). Bound to loopback by default; it has no authentication of its own.
 */
const faultsBody = z.object({
  clear: z.boolean().optional(),
  rules: z.array(ruleSchema).optional(),
  rateLimit: z
    .object({ requestsPerSecond: z.number().positive().max(100_000) })
    .nullable()
    .optional(),
});

const nonNegative = z.number().int().min(0).optional();
const jobBody = z.object({
  provider: z.enum(PROVIDER_NAMES),
  id: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .optional(),
  model: z.string().min(3).optional(),
  input: z.unknown().optional(),
  outcome: z.enum(["succeeded", "failed", "canceled", "stuck"]).optional(),
  queuedMs: nonNegative,
  runningMs: nonNegative,
  notFoundForMs: nonNegative,
  outputBytes: z
    .number()
    .int()
    .min(0)
    .max(512 * 1024 * 1024)
    .optional(),
  outputTtlMs: nonNegative,
  resultTtlMs: nonNegative,
  error: z.string().max(500).optional(),
  errorOnStatus: z.boolean().optional(),
  outputShape: z.enum(["url", "nested", "inline", "unreadable"]).optional(),
  throttled: z.boolean().optional(),
  signedOutputs: z.boolean().optional(),
  outputSeed: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .optional(),
  costMicros: z.number().int().min(0).max(1_000_000_000_000).optional(),
});

const pricesBody = z.strictObject({
  prices: z.array(
    z.strictObject({
      provider: z.enum(PROVIDER_NAMES),
      model: z.string().min(3),
      unit: z.enum(["per_generation", "per_second"]),
      priceMicros: z.number().int().min(0).max(1_000_000_000_000),
      currency: z.string().regex(/^[A-Z]{3}$/),
    }),
  ),
});

async function prices(ctx: RouteContext) {
  const parsed = pricesBody.safeParse(await readJson(ctx.req).catch(() => undefined));
  if (!parsed.success) return sendJson(ctx.res, 400, { detail: z.prettifyError(parsed.error) });
  for (const { provider, model, ...price } of parsed.data.prices) setPrice(ctx.state.prices, provider, model, price);
  return sendJson(ctx.res, 200, { prices: parsed.data.prices.length });
}

function usage(ctx: RouteContext, provider: string) {
  const name = PROVIDER_NAMES.find((known) => known === provider);
  if (!name) return sendJson(ctx.res, 404, { detail: "no such provider" });
  const file = usageExport(ctx.state, name, providerJobIdOf);
  ctx.res.writeHead(200, {
    "content-type": file.contentType,
    "x-usage-format": file.format,
    "content-disposition": `attachment; filename="${file.fileName}"`,
  });
  ctx.res.end(file.content);
}

const webhookFaultsBody = z.strictObject({
  duplicate: z.boolean().default(false),
  lateProcessing: z.boolean().default(false),
  badSignatureFirst: z.boolean().default(false),
  delayMs: z.number().int().min(0).max(600_000).default(0),
});

async function webhookFaults(ctx: RouteContext) {
  const parsed = webhookFaultsBody.safeParse(await readJson(ctx.req).catch(() => undefined));
  if (!parsed.success) return sendJson(ctx.res, 400, { detail: parsed.error.message });
  ctx.state.webhooks.faults = parsed.data;
  return sendJson(ctx.res, 200, { faults: parsed.data });
}

export async function handleAdmin(ctx: RouteContext, method: string, parts: string[]): Promise<void> {
  const [area, id] = parts;
  if (method === "GET" && area === "stats") return sendJson(ctx.res, 200, ctx.state.stats());
  if (method === "POST" && area === "reset") {
    ctx.state.reset();
    return sendJson(ctx.res, 200, { ok: true });
  }
  if (method === "POST" && area === "faults") return faults(ctx);
  if (method === "GET" && area === "webhooks") return sendJson(ctx.res, 200, { sent: ctx.state.webhooks.sent });
  if (method === "POST" && area === "webhooks") return webhookFaults(ctx);
  if (method === "POST" && area === "jobs" && !id) return seed(ctx);
  if (method === "POST" && area === "prices" && !id) return prices(ctx);
  if (method === "GET" && area === "usage" && id) return usage(ctx, id);
  if (method === "GET" && area === "jobs" && id) {
    const job = ctx.state.jobs.get(id);
    return job ? sendJson(ctx.res, 200, describeJob(ctx, job)) : sendJson(ctx.res, 404, { detail: "no such job" });
  }
  sendJson(ctx.res, 404, { detail: "unknown admin route" });
}

async function faults(ctx: RouteContext) {
  const parsed = faultsBody.safeParse(await readJson(ctx.req).catch(() => undefined));
  if (!parsed.success) return sendJson(ctx.res, 400, { detail: z.prettifyError(parsed.error) });
  const { clear, rules, rateLimit } = parsed.data;
  if (clear) ctx.state.faults.clear();
  for (const rule of rules ?? []) ctx.state.faults.add(rule);
  if (rateLimit !== undefined)
    ctx.state.rateLimit = rateLimit ? new RateLimiter(rateLimit.requestsPerSecond) : undefined;
  const { faults: active, rateLimit: limit } = ctx.state.stats();
  sendJson(ctx.res, 200, { rules: active, rateLimit: limit });
}

async function seed(ctx: RouteContext) {
  const parsed = jobBody.safeParse(await readJson(ctx.req).catch(() => undefined));
  if (!parsed.success) return sendJson(ctx.res, 400, { detail: z.prettifyError(parsed.error) });
  try {
    const job = ctx.state.seedJob(parsed.data);
    sendJson(ctx.res, 201, describeJob(ctx, job));
  } catch (error) {
    sendJson(ctx.res, 409, { detail: (error as Error).message });
  }
}

export function describeJob(ctx: Pick<RouteContext, "state" | "origin">, job: SimJob) {
  return {
    id: job.id,
    provider: job.provider,
    model: job.model,
    outcome: job.outcome,
    phase: phaseOf(job, ctx.state.clock.now()),
    createdAt: new Date(job.createdAt).toISOString(),
    completesAt: job.outcome === "stuck" ? null : new Date(completedAt(job)).toISOString(),
    createdByApi: job.createdByApi,
    costMicros: costOf(ctx.state.prices, job),
    outputUrl: outputUrlOf(ctx, job),
    expectedOutput: ctx.state.expectedOutput(job.id),
  };
}
