import { errorResponse } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { metricsContentType } from "@/lib/metrics/figures";
import { metricsAccess } from "@/lib/metrics/metrics-access";
import { scrapeMetrics } from "@/lib/services/overview/metrics-snapshot";

export const dynamic = "force-dynamic";

/** Prometheus text format, behind METRICS_TOKEN (lib/metrics/metrics-access.ts). */
export async function GET(req: Request): Promise<Response> {
  try {
    const config = env();
    const access = metricsAccess(req.headers.get("authorization"), { token: config.METRICS_TOKEN, demo: config.demo });
    if (access === "not_configured") {
      throw new AppError(
        "forbidden",
        "Metrics are off: set METRICS_TOKEN on the server and send it as a bearer token.",
      );
    }
    if (access === "refused") throw new AppError("unauthenticated", "Send the metrics token as a bearer token.");
    const body = await scrapeMetrics(db());
    return new Response(body, { headers: { "content-type": metricsContentType() } });
  } catch (error) {
    return errorResponse(error);
  }
}
