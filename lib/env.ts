import { z } from "zod";
import { parseTrustedProxies } from "./auth/trusted-proxies";
import {
  DEFAULT_MONEY_CEILING_MICROS,
  HARD_MONEY_CEILING_MICROS,
  MIN_MONEY_CEILING_MICROS,
} from "./domain/money-ceiling";
import { DEFAULT_VAULT_POLICY, parseVaultProviders } from "./domain/vault";
import { optionalPositiveInteger, optionalText, optionalUrl } from "./env-fields";
import { isPublishedDemoKey, parsePrivateKey } from "./evidence/signing-key";
import { processShared } from "./process-shared";
import { ACTION_BOUND_VARS, type ActionBoundVar, LIVE_PROVIDER_KEYS, PROVIDERS } from "./providers/registry";

const integer = (fallback: number, min = 1) => z.coerce.number().int().min(min).default(fallback);

const nodeEnv = z.enum(["development", "production", "test"]).default("development");

/** Read on their own too (logSettings), so a process that needs no other setting can log. */
const logSchema = z.object({
  NODE_ENV: nodeEnv,
  LOG_LEVEL: optionalText.pipe(z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info")),
  /** json: one JSON object a line (the default in production); plain: lines for people (otherwise). */
  LOG_FORMAT: optionalText.pipe(z.enum(["json", "plain"]).optional()),
});

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type ProviderSettings = UnionToIntersection<(typeof PROVIDERS)[number]["env"]>;

/** Each provider's own settings (its key, base-URL override, webhook secret), declared in its folder. */
function providerSettings(): ProviderSettings {
  return Object.assign({}, ...PROVIDERS.map((provider) => provider.env));
}

/**
 * Each provider's bound on one approved recovery action (DESIGN rule 19), `<NAME>_ACTION_MAX_ATTEMPTS`
 * and `<NAME>_ACTION_MAX_SECONDS`; unset, the worker derives it from the provider's documented run time.
 */
function actionBoundSettings(): Record<ActionBoundVar, typeof optionalPositiveInteger> {
  const names = Object.values(ACTION_BOUND_VARS).flatMap((vars) => [vars.attempts, vars.seconds]);
  return Object.fromEntries(names.map((name) => [name, optionalPositiveInteger])) as Record<
    ActionBoundVar,
    typeof optionalPositiveInteger
  >;
}

const schema = z.object({
  ...logSchema.shape,
  /** The app's runtime role: owns nothing, may only append to audit_events and ledger_entries. */
  DATABASE_URL: optionalUrl,
  /** The owner of the tables, for migrations only; unset means DATABASE_URL (a single-role deployment). */
  MIGRATION_DATABASE_URL: optionalUrl,
  PORT: integer(3000),
  /** A client gets this long to send a request's headers, and this long for the whole request (slow-body defence). */
  HTTP_HEADERS_TIMEOUT_MS: integer(15_000, 100),
  HTTP_REQUEST_TIMEOUT_MS: integer(30_000, 100),
  /** Loopback by default: a console with published demo passwords must not face the network by accident. */
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().default(".data"),
  EMBEDDED_PG_PORT: integer(54329),
  DEMO: z.enum(["auto", "1", "0"]).default("auto"),
  AUTH_SECRET: optionalText.pipe(z.string().min(32).optional()),
  AUTH_URL: optionalUrl,
  SESSION_MAX_AGE_SECONDS: integer(8 * 60 * 60, 60),
  LOGIN_MAX_ATTEMPTS_PER_ACCOUNT: integer(5),
  LOGIN_MAX_ATTEMPTS_PER_IP: integer(30),
  LOGIN_WINDOW_SECONDS: integer(15 * 60),
  /** An account's sign-in rate from addresses it does not know: a burst, then one per refill (decision 053). */
  LOGIN_ACCOUNT_BURST: integer(10),
  LOGIN_ACCOUNT_REFILL_SECONDS: integer(180),
  /** Proxies in front of the app whose X-Forwarded-For is believed: a hop count, or their addresses. */
  TRUSTED_PROXIES: optionalText.refine((value) => parseTrustedProxies(value) !== null, {
    message: "a hop count (1) or a comma-separated list of proxy addresses and CIDR ranges",
  }),
  API_RATE_LIMIT_PER_MINUTE: integer(1200),
  REPLACEMENT_TTL_SECONDS: integer(72 * 60 * 60, 60),
  /**
   * The money ceiling (decision 051): the most one hold, charge or replacement may be, in
   * micro-units; default 10,000 units of the currency. A value below one unit, above the hard
   * maximum (the database's CHECK) or not a whole number stops the process at start.
   */
  MONEY_CEILING_MICROS: z.coerce
    .number()
    .int()
    .min(MIN_MONEY_CEILING_MICROS)
    .max(HARD_MONEY_CEILING_MICROS)
    .default(DEFAULT_MONEY_CEILING_MICROS),
  BULK_APPROVE_LIMIT: integer(500),
  ALERT_UNCERTAIN_THRESHOLD: integer(5),
  ALERT_WINDOW_MINUTES: integer(60),
  WORKER_TICK_BUDGET_MS: integer(25_000, 1_000),
  WORKER_LEASE_SECONDS: integer(60, 5),
  WORKER_POLL_BASE_SECONDS: integer(30),
  WORKER_POLL_MAX_SECONDS: integer(15 * 60),
  WORKER_CONCURRENCY: integer(4),
  WORKER_POISON_CLAIMS: integer(5),
  MAX_DOWNLOAD_BYTES: integer(1024 * 1024 * 1024),
  ASSET_DIR: optionalText,
  /**
   * The output vault (decision 075): whose outputs the product copies when no case will (`short`:
   * providers keeping outputs six hours or less; `all`; `off`; or a comma list), the most one copy
   * and all copies may take, and how long a copy is kept (hours).
   */
  VAULT_PROVIDERS: optionalText.refine((value) => value === undefined || parseVaultProviders(value) !== null, {
    message: "short, all, off, or a comma list of provider names",
  }),
  VAULT_MAX_FILE_BYTES: integer(DEFAULT_VAULT_POLICY.maxFileBytes),
  VAULT_MAX_TOTAL_BYTES: integer(DEFAULT_VAULT_POLICY.maxTotalBytes),
  VAULT_KEEP_HOURS: integer(DEFAULT_VAULT_POLICY.keepSeconds / 3600),
  /** 1 keeps full prompts in request summaries; by default only their SHA-256 and length are kept. */
  STORE_PROMPTS: z.enum(["0", "1"]).default("0"),
  METRICS_TOKEN: optionalText,
  /**
   * Signs evidence packets (decision 029): an Ed25519 private key in PKCS#8 PEM, line breaks as
   * "\n" allowed. Unset in demo mode: a key derived from AUTH_SECRET; unset in production: no export.
   */
  EVIDENCE_SIGNING_KEY: optionalText.refine((value) => value === undefined || parsePrivateKey(value) !== null, {
    message: "an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519)",
  }),
  /**
   * Comma list of host names and address ranges (CIDR) webhooks may reach although private or over
   * plain http; unset: none, or this machine's loopback names in demo mode.
   */
  WEBHOOK_ALLOWED_HOSTS: optionalText.pipe(
    z
      .string()
      .refine(
        (list) => list.split(",").every((entry) => /^[a-z0-9.:[\]-]*(\/\d{1,3})?$/i.test(entry.trim())),
        "a comma list of host names, addresses or CIDR ranges",
      )
      .optional(),
  ),
  PROVIDER_MODE: optionalText.pipe(z.enum(["simulator", "live"]).optional()),
  SIMULATOR_URL: optionalUrl,
  SIMULATOR_TOKEN: optionalText,
  ...providerSettings(),
  ...actionBoundSettings(),
  OIDC_ISSUER: optionalUrl,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_NAME: z.string().default("Single sign-on"),
});

export type Env = z.infer<typeof schema> & {
  /** Demo users and the demo banner exist only in demo mode. */
  demo: boolean;
  /** Explicit outside demo mode; the demo defaults to the local simulator. */
  providerMode: "simulator" | "live";
  oidcEnabled: boolean;
  authUrl: string;
};

export class EnvError extends Error {}

const invalidEnvironment = (error: z.ZodError) =>
  new EnvError(`Invalid environment: ${error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);

/**
 * Demo mode is the zero-configuration default: no AUTH_SECRET and no DATABASE_URL. An operator who
 * sets AUTH_SECRET, or DEMO=0, runs production: no demo users, and no start without a secret.
 * DEMO=1 forces demo mode even with a secret (the launcher and the browser tests use this). A
 * database named by DATABASE_URL is never given the published demo accounts unless DEMO=1 says so,
 * so a forgotten AUTH_SECRET there is an error rather than a quiet demo (docs/decisions/017).
 */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) throw invalidEnvironment(parsed.error);
  const env = parsed.data;
  const demo = env.DEMO === "1" || (env.DEMO === "auto" && !env.AUTH_SECRET && !env.DATABASE_URL);
  if (!demo && !env.AUTH_SECRET) {
    throw new EnvError(
      env.DEMO === "auto"
        ? "DATABASE_URL is set but AUTH_SECRET is not: set AUTH_SECRET (32+ characters) to run in production, or DEMO=1 to put the demo accounts into that database"
        : "AUTH_SECRET (32+ characters) is required outside demo mode",
    );
  }
  if (!demo && env.EVIDENCE_SIGNING_KEY && isPublishedDemoKey(env.EVIDENCE_SIGNING_KEY)) {
    throw new EnvError("EVIDENCE_SIGNING_KEY is the published demo key: generate one of your own for production");
  }
  const providerMode = demo ? (env.PROVIDER_MODE ?? "simulator") : requireProviderMode(env);
  const oidcEnabled = Boolean(env.OIDC_ISSUER && env.OIDC_CLIENT_ID && env.OIDC_CLIENT_SECRET);
  return { ...env, demo, providerMode, oidcEnabled, authUrl: env.AUTH_URL ?? `http://localhost:${env.PORT}` };
}

/**
 * Outside demo mode nothing defaults to the simulator: a process that happens to own a local port
 * must never become "the provider" whose answers settle holds. Live mode needs at least one key;
 * a provider without one is simply not configured (its cases park with that evidence).
 */
function requireProviderMode(env: z.infer<typeof schema>): "simulator" | "live" {
  if (!env.PROVIDER_MODE) {
    throw new EnvError(
      `PROVIDER_MODE is required outside demo mode: "live" (any of ${LIVE_PROVIDER_KEYS.join(", ")}) or "simulator" (SIMULATOR_URL and SIMULATOR_TOKEN)`,
    );
  }
  if (env.PROVIDER_MODE === "simulator" && (!env.SIMULATOR_URL || !env.SIMULATOR_TOKEN)) {
    throw new EnvError("PROVIDER_MODE=simulator outside demo mode needs SIMULATOR_URL and SIMULATOR_TOKEN");
  }
  const settings: Partial<Record<string, unknown>> = env;
  if (env.PROVIDER_MODE === "live" && !LIVE_PROVIDER_KEYS.some((key) => settings[key])) {
    const [last, ...others] = [...LIVE_PROVIDER_KEYS].reverse();
    throw new EnvError(`PROVIDER_MODE=live needs ${others.reverse().join(", ")} or ${last} (any of them)`);
  }
  return env.PROVIDER_MODE;
}

export type LogSettings = { level: z.infer<typeof logSchema>["LOG_LEVEL"]; format: "json" | "plain" };

export function logSettings(source: Record<string, string | undefined>): LogSettings {
  const parsed = logSchema.safeParse(source);
  if (!parsed.success) throw invalidEnvironment(parsed.error);
  const { NODE_ENV, LOG_LEVEL, LOG_FORMAT } = parsed.data;
  return { level: LOG_LEVEL, format: LOG_FORMAT ?? (NODE_ENV === "production" ? "json" : "plain") };
}

/** Parsed once per process, on first use, so importing a module never throws. */
export function env(): Env {
  return processShared("env", () => parseEnv(process.env));
}
