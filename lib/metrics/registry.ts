import { Registry } from "prom-client";
import { processShared } from "@/lib/process-shared";

/**
 * The process's one Prometheus registry. The HTTP entry and Next.js's bundle each load this module
 * (and may each load prom-client), so the registry and every metric in it are created once, on
 * the process-shared store; a second copy registering the same names would be refused.
 */
export const metricsRegistry = (): Registry => processShared("metrics-registry", () => new Registry());
