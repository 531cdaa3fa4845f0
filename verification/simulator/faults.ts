import { z } from "zod";
import { PROVIDER_NAMES } from "../../lib/providers/registry";
import type { SimProvider } from "./jobs";

/**
 * Fault injection, as accepted by `POST /__admin/faults` and `state.faults.add()`. A rule matches
 * requests by provider, route and job id (all optional) and applies to the next `times` matches
 * (forever when omitted). The first matching rule wins.
 */
export const SIM_ROUTES = ["status", "result", "list", "create", "download", "cancel"] as const;
export type SimRoute = (typeof SIM_ROUTES)[number];

export const faultSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("delay"), ms: z.number().int().min(0).max(600_000) }),
  z.object({ type: z.literal("hang") }),
  z.object({ type: z.literal("reset") }),
  z.object({ type: z.literal("http_error"), status: z.number().int().min(400).max(599) }),
  z.object({ type: z.literal("rate_limit"), retryAfterSeconds: z.number().int().min(0).max(3600) }),
  z.object({ type: z.literal("truncate"), afterBytes: z.number().int().min(0).optional() }),
  z.object({ type: z.literal("corrupt") }),
  /** Download sent without Content-Length, so only the streaming size cap can stop it. */
  z.object({ type: z.literal("chunked") }),
  z.object({ type: z.literal("redirect"), toHost: z.string().min(1) }),
]);
export type Fault = z.infer<typeof faultSchema>;

export const ruleSchema = z.object({
  match: z
    .object({
      provider: z.enum(PROVIDER_NAMES).optional(),
      route: z.enum(SIM_ROUTES).optional(),
      jobId: z.string().min(1).optional(),
    })
    .default({}),
  fault: faultSchema,
  times: z.number().int().min(1).optional(),
});
export type FaultRuleInput = z.input<typeof ruleSchema>;
export type FaultRule = z.infer<typeof ruleSchema> & { id: number };

export type RequestContext = { provider: SimProvider; route: SimRoute; jobId?: string };

export class FaultBook {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): FaultRule {
    const rule = { ...ruleSchema.parse(input), id: this.nextId++ };
    this.rules.push(rule);
    return rule;
  }

  /** Returns the fault for this request, consuming one use of a counted rule. */
  take(context: RequestContext): Fault | undefined {
    const rule = this.rules.find((r) => matches(r, context));
    if (!rule) return undefined;
    if (rule.times !== undefined) {
      rule.times -= 1;
      if (rule.times === 0) this.rules = this.rules.filter((r) => r !== rule);
    }
    return rule.fault;
  }

  list(): FaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  clear(): void {
    this.rules = [];
  }
}

function matches(rule: FaultRule, context: RequestContext): boolean {
  const { provider, route, jobId } = rule.match;
  return (
    (provider === undefined || provider === context.provider) &&
    (route === undefined || route === context.route) &&
    (jobId === undefined || jobId === context.jobId)
  );
}

/**
 * Global requests-per-second limit over the provider API routes (token bucket). It runs on real
 * time, not the simulated clock, because it is about how fast clients actually call.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  /** Requests answered 429 so far: how a test sees that its clients overran the limit. */
  refused = 0;

  /** `now` in milliseconds; a test that stops it makes one second last as long as it likes. */
  constructor(
    readonly requestsPerSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = requestsPerSecond;
    this.last = now();
  }

  /** undefined when allowed; otherwise the whole seconds to wait (Retry-After is integral). */
  take(): number | undefined {
    const now = this.now();
    this.tokens = Math.min(this.requestsPerSecond, this.tokens + ((now - this.last) / 1000) * this.requestsPerSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    this.refused += 1;
    return Math.max(1, Math.ceil((1 - this.tokens) / this.requestsPerSecond));
  }
}
