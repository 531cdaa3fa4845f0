import type { DestinationStream } from "pino";

const LEVELS_TO_STDERR = new Set(["warn", "error", "fatal"]);
const shown = (value: unknown) =>
  typeof value === "string" && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);

/**
 * Lines for people (`npm start`, development): "[worker] step=claimed claimed=2", warnings and
 * errors on stderr. pino has already serialised and redacted each line; this only reshapes it.
 */
export function plainLines(destination?: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      const { level, time: _time, component, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const prefix = component ? `[${component}] ` : "";
      const tag = LEVELS_TO_STDERR.has(String(level)) ? `${level}: ` : "";
      const rest = Object.entries(fields).map(([key, value]) => `${key}=${shown(value)}`);
      const text = `${prefix}${tag}${[msg ?? "", ...rest].filter(Boolean).join(" ")}\n`;
      if (destination) destination.write(text);
      else (LEVELS_TO_STDERR.has(String(level)) ? process.stderr : process.stdout).write(text);
    },
  };
}
