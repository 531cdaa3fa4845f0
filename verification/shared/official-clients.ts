import { createFalClient } from "@fal-ai/client";
import { GoogleGenAI } from "@google/genai";
import RunwayML from "@runwayml/sdk";
import LumaAI from "lumaai";
import Replicate from "replicate";
import type { ProviderName } from "@/lib/providers/types";
import { type CreateContext, guardFal, guardGenai, guardLuma, guardReplicate, guardRunway } from "@/sdk/src";

/**
 * One create per provider through the provider's own official client, pointed at the simulator
 * with the base-URL setting each documents. `guarded` builds the client as README's "Official
 * clients: one create per send" says (the submit's one-create fetch, retries off where there is a
 * setting); unguarded, the client is built as a producer would by default, retries and all.
 */
export type OfficialClient = {
  provider: ProviderName;
  /** The package and version whose behaviour this drives. */
  client: string;
  model: string;
  /** Sends one create and returns the provider's job ID (Veo: the operation's full name). */
  create(ctx: CreateContext, target: { url: string; token: string }, guarded: boolean): Promise<string>;
};

const prompt = "a lighthouse at dusk";

export const OFFICIAL_CLIENTS: readonly OfficialClient[] = [
  {
    provider: "replicate",
    client: "replicate 1.4.0",
    model: "minimax/video-01",
    async create(ctx, { url, token }, guarded) {
      const options = { auth: token, baseUrl: `${url}/replicate/v1` };
      const replicate = new Replicate(guarded ? guardReplicate(ctx, options) : options);
      const prediction = await replicate.predictions.create({
        model: "minimax/video-01",
        input: { prompt },
        signal: ctx.signal,
      });
      return prediction.id;
    },
  },
  {
    provider: "fal",
    client: "@fal-ai/client 1.10.1",
    model: "fal-ai/kling-video/v2.5-turbo/pro/text-to-video",
    async create(ctx, { url, token }, guarded) {
      // fal builds https://queue.fal.run URLs itself; its request middleware is where they are redirected.
      const config = {
        credentials: token,
        requestMiddleware: async <R extends { url: string }>(request: R) => ({
          ...request,
          url: request.url.replace("https://queue.fal.run", `${url}/fal`),
        }),
      };
      const fal = createFalClient(guarded ? guardFal(ctx, config) : config);
      const queued = await fal.queue.submit("fal-ai/kling-video/v2.5-turbo/pro/text-to-video", {
        input: { prompt },
        abortSignal: ctx.signal,
      });
      return queued.request_id;
    },
  },
  {
    provider: "runway",
    client: "@runwayml/sdk 4.20.1",
    model: "gen4.5",
    async create(ctx, { url, token }, guarded) {
      const options = { apiKey: token, baseURL: `${url}/runway` };
      const runway = new RunwayML(guarded ? guardRunway(ctx, options) : options);
      const task = await runway.textToVideo.create(
        { model: "gen4.5", promptText: prompt, ratio: "1280:720", duration: 5 },
        { signal: ctx.signal },
      );
      return task.id;
    },
  },
  {
    provider: "luma",
    client: "lumaai 1.19.1",
    model: "ray-2",
    async create(ctx, { url, token }, guarded) {
      const options = { authToken: token, baseURL: `${url}/luma/dream-machine/v1` };
      const luma = new LumaAI(guarded ? guardLuma(ctx, options) : options);
      const generation = await luma.generations.create({ prompt, model: "ray-2" }, { signal: ctx.signal });
      if (!generation.id) throw new Error("Luma answered without a generation ID");
      return generation.id;
    },
  },
  genai(),
];

/**
 * Veo through `@google/genai` 3.3.0, whose `generateVideos` runs only against Vertex AI (an API key
 * in express mode); `retryOptions` is what a producer would set to have 503s retried.
 */
export function genai(retryOptions?: { attempts: number; initialDelay: number }): OfficialClient {
  return {
    provider: "veo",
    client: retryOptions ? "@google/genai 3.3.0 with retryOptions" : "@google/genai 3.3.0",
    model: "veo-3.1-generate-preview",
    async create(ctx, { url, token }, guarded) {
      const httpOptions = { baseUrl: `${url}/veo`, apiVersion: "v1beta", ...(retryOptions ? { retryOptions } : {}) };
      const options = { vertexai: true, apiKey: token, httpOptions };
      const client = new GoogleGenAI(guarded ? guardGenai(ctx, options) : options);
      const operation = await client.models.generateVideos({
        model: "veo-3.1-generate-preview",
        source: { prompt },
        config: { abortSignal: ctx.signal },
      });
      if (!operation.name) throw new Error("Veo answered without an operation name");
      return operation.name;
    },
  };
}
