import { createFalClient } from "@fal-ai/client";
import RunwayML from "@runwayml/sdk";
import LumaAI from "lumaai";
import Replicate from "replicate";
import { type GuardContext, guardFal, guardLuma, guardReplicate, guardRunway } from "@/sdk/src";
import type { ModelChoice } from "./op-plan";

/**
 * The same create request a shop's raw call sends (path, body, headers), sent instead by the
 * provider's official client built with its guard (README, "Official clients: one create per
 * send"). Replicate's and fal's clients resend on their own whatever the settings, so their resends
 * meet the one-create fetch; Runway's and Luma's have theirs turned off by the guard. Veo's shops send
 * through the guarded fetch itself: Google's client retries nothing by default and builds a body of
 * its own. The client's error is swallowed: the caller reads the status the wire answered.
 */
export async function sendWithOfficialClient(
  simulatorUrl: string,
  model: ModelChoice,
  /** `path` as the raw call sends it; fal's client builds its own from the model and the webhook URL. */
  request: { path: string; body: unknown; webhookUrl: string | undefined },
  ctx: GuardContext,
): Promise<void> {
  const { path, body, webhookUrl } = request;
  const key = "sim-shop-key";
  try {
    if (model.provider === "replicate") {
      const replicate = new Replicate(guardReplicate(ctx, { auth: key, baseUrl: simulatorUrl }));
      await replicate.request(path, { method: "POST", data: body as object, signal: ctx.signal });
    } else if (model.provider === "fal") {
      // fal builds queue.fal.run URLs itself; its request middleware sends them to the simulator.
      const fal = createFalClient(
        guardFal(ctx, {
          credentials: key,
          requestMiddleware: async <R extends { url: string }>(call: R) => ({
            ...call,
            url: call.url.replace("https://queue.fal.run", `${simulatorUrl}/fal`),
          }),
        }),
      );
      const endpoint = model.createPath.replace(/^\/fal\//, "");
      await fal.queue.submit(endpoint, {
        input: body as Record<string, unknown>,
        ...(webhookUrl ? { webhookUrl } : {}),
        abortSignal: ctx.signal,
      });
    } else if (model.provider === "runway") {
      const runway = new RunwayML(guardRunway(ctx, { apiKey: key, baseURL: simulatorUrl }));
      await runway.post(path, { body, headers: model.headers, signal: ctx.signal });
    } else if (model.provider === "luma") {
      const luma = new LumaAI(guardLuma(ctx, { authToken: key, baseURL: simulatorUrl }));
      await luma.post(path, { body, signal: ctx.signal });
    } else {
      const response = await ctx.fetch(`${simulatorUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...model.headers },
        body: JSON.stringify(body),
      });
      await response.body?.cancel();
    }
  } catch {
    // A refusal, a lost answer or a refused resend: what reached the wire is what counts.
  }
}
