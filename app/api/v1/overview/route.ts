import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { overviewStats } from "@/lib/services/overview-stats";

export const dynamic = "force-dynamic";

export const GET = apiRoute({
  audience: "user",
  handler: ({ actor }) =>
    overviewStats(db(), actor, {
      alertWindowMinutes: env().ALERT_WINDOW_MINUTES,
      alertThreshold: env().ALERT_UNCERTAIN_THRESHOLD,
    }),
});
