import { timingSafeEqual } from "node:crypto";
import { errorResponse } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { exposition } from "@/lib/metrics/exposition";
import { metricsSnapshot } from "@/lib/services/metrics-snapshot";

export const dynamic = "force-dynamic";

function authorised(req: Request, token: string | undefined): boolean {
  if (!token) return true;
  const presented = Buffer.from(/^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Prometheus text format; protected by METRICS_TOKEN when it is set. */
export async function GET(req: Request): Promise<Response> {
  try {
    if (!authorised(req, env().METRICS_TOKEN))
      throw new AppError("unauthenticated", "Send the metrics token as a bearer token.");
    const body = exposition(await metricsSnapshot(db()));
    return new Response(body, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
  } catch (error) {
    return errorResponse(error);
  }
}
