import { timingSafeEqual } from "node:crypto";
import { bearerSecret } from "@/lib/auth/token-secret";

export type MetricsAccess = "allowed" | "not_configured" | "refused";

/**
 * The metrics carry money on hold and case counts, so outside demo mode they are served only with
 * METRICS_TOKEN set on the server and presented as a bearer token; demo mode keeps them open.
 */
export function metricsAccess(authorization: string | null, config: { token?: string; demo: boolean }): MetricsAccess {
  if (!config.token) return config.demo ? "allowed" : "not_configured";
  const presented = Buffer.from(bearerSecret(authorization) ?? "");
  const expected = Buffer.from(config.token);
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? "allowed" : "refused";
}
