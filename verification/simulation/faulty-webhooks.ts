import { Webhook } from "standardwebhooks";
import type { SimWorker } from "./sim-worker";
import { planWebhook } from "./worker-faults";
import { count, opOfOperationId, opsOfOperationText, violate, type World } from "./world";

type Delivered = { type?: string; data?: { operationId?: string } };

/**
 * The worker's `fetchImpl` for webhooks, ending at the producer's endpoint in-process: the
 * signature is verified (Standard Webhooks), deliveries are de-duplicated by `webhook-id`, and the
 * path may fail (connection error, 5xx) or the worker may crash before sending or after the
 * producer already accepted (so the same message arrives again later).
 */
export function producerEndpoint(world: World, worker: SimWorker): typeof fetch {
  const verifiers = new Map(world.producers.map((p) => [p.endpointUrl, new Webhook(p.webhookSecret)]));
  return async (url, init) => {
    worker.webhookSends += 1;
    const body = typeof init?.body === "string" ? init.body : "";
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const payload = JSON.parse(body) as Delivered;
    const target = String(url instanceof Request ? url.url : url);
    const shop = world.producers.find((p) => p.endpointUrl === target);
    const index = opOfOperationId(world, shop?.principal.name, payload.data?.operationId);
    const op = index === null ? null : (world.ops[index] ?? null);
    if (!op && payload.data?.operationId && opsOfOperationText(world, payload.data.operationId).length > 0) {
      // The message is about an operation another shop owns: this shop was told about a video it never ordered.
      violate(
        world,
        "unexpectedRefusals",
        null,
        `${shop?.principal.name ?? target} got a webhook for another shop's operation`,
      );
    }
    const verifier = verifiers.get(target);
    const plan = planWebhook(world, op);
    if (plan.crash === "before") return worker.crash(index, "before sending the webhook");
    if (plan.transportError) throw new TypeError("fetch failed: simulated connection reset");
    let verified = true;
    try {
      if (!verifier) throw new Error("no such endpoint");
      verifier.verify(body, headers);
    } catch {
      verified = false;
      violate(world, "unexpectedRefusals", index, "a webhook arrived with a signature that does not verify");
    }
    const status = verified ? plan.status : 401;
    if (status < 300 && op) {
      const id = headers["webhook-id"] ?? "";
      if (op.webhooks.has(id)) count(world, "webhooks delivered again with the same webhook-id (deduplicated)");
      else world.trace.record(index, `producer notified: ${payload.type}`);
      op.webhooks.add(id);
    }
    if (plan.crash === "after") return worker.crash(index, "after the producer accepted the webhook");
    return new Response(null, { status });
  };
}
