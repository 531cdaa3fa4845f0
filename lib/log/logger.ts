import pino, { type DestinationStream, type Level, type Logger } from "pino";
// Relative imports, as in lib/db and lib/env: the database client loads this module.
import { REDACTED, redactString } from "../domain/sanitise";
import { type LogSettings, logSettings } from "../env";
import { processShared } from "../process-shared";
import { plainLines } from "./plain-lines";

/**
 * Keys whose values never reach a log line: exact names, not suffixes (a fencing token is no
 * secret, and the worker's lines carry it on purpose), at the top of a logged object and inside
 * the objects that carry them (headers, a request's or response's headers, a producer's, user's,
 * body's or config's fields). Paths are spelled out rather than wildcards: pino pays for every
 * wildcard on every line, and nothing measurable for a plain path the line does not have
 * (measured in docs/decisions/021).
 */
const SECRET_KEYS = [
  "authorization",
  "cookie",
  "set-cookie",
  "proxy-authorization",
  "x-api-key",
  "token",
  "accessToken",
  "refreshToken",
  "idToken",
  "apiKey",
  "api_key",
  "secret",
  "clientSecret",
  "client_secret",
  "signingSecret",
  "webhookSecret",
  "password",
  "passwordHash",
  "workerToken",
  "personalToken",
  "simulatorToken",
  "AUTH_SECRET",
  "NEXTAUTH_SECRET",
  "OIDC_CLIENT_SECRET",
  "METRICS_TOKEN",
  "EVIDENCE_SIGNING_KEY",
  "WORKER_TOKEN",
  "SIMULATOR_TOKEN",
  // Every provider's live key (tests/unit hold this list to the registry's LIVE_PROVIDER_KEYS).
  "REPLICATE_API_TOKEN",
  "FAL_KEY",
  "RUNWAYML_API_SECRET",
  "GEMINI_API_KEY",
  "LUMAAI_API_KEY",
  "REPLICATE_WEBHOOK_SECRET",
  "DATABASE_URL",
  "MIGRATION_DATABASE_URL",
];
const HEADER_KEYS = ["authorization", "cookie", "set-cookie", "proxy-authorization", "x-api-key", "x-goog-api-key"];
const HEADER_HOLDERS = ["headers", "req.headers", "request.headers", "res.headers", "response.headers"];
const SECRET_HOLDERS = ["producer", "user", "body", "config", "env", "options", "credentials"];

const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`);
export const SECRET_KEY_NAMES: readonly string[] = SECRET_KEYS;
export const REDACT_PATHS = [
  ...SECRET_KEYS.map((name) => key(name).replace(/^\./, "")),
  ...HEADER_HOLDERS.flatMap((holder) => HEADER_KEYS.map((name) => `${holder}${key(name)}`)),
  ...SECRET_HOLDERS.flatMap((holder) => SECRET_KEYS.map((name) => `${holder}${key(name)}`)),
];

/**
 * Error messages can quote a signed URL or a bearer token, so the free-text fields get the same
 * string redaction evidence gets. Only those: run on every identifier too, the patterns would cost
 * each line several times what pino does (docs/decisions/021).
 */
const FREE_TEXT_KEYS = ["error", "reason", "detail"];
function redactFreeText(fields: Record<string, unknown>): Record<string, unknown> {
  if (!FREE_TEXT_KEYS.some((name) => typeof fields[name] === "string")) return fields;
  const copy = { ...fields };
  for (const name of FREE_TEXT_KEYS) if (typeof copy[name] === "string") copy[name] = redactString(copy[name]);
  return copy;
}

/** A logger for this process's settings; the destination is stdout unless a test gives its own. */
export function createLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = {
    level: settings.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: redactFreeText,
    },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
  };
  if (settings.format === "plain") return pino({ ...options, base: undefined }, plainLines(destination));
  return destination ? pino(options, destination) : pino(options);
}

const root = () => processShared("logger", () => createLogger(logSettings(process.env)));

/** The process's logger for one part of it ("server", "worker"), named in every line. */
export function logger(component: string): Logger {
  return processShared(`logger.${component}`, () => root().child({ component }));
}

export type { Level };
