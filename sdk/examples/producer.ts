import {
  createRecoveryClient,
  guardReplicate,
  ProviderRejected,
  requestFingerprint,
} from "@video-job-recovery/producer-sdk";
import Replicate from "replicate";

const recovery = createRecoveryClient({
  baseUrl: process.env.RECOVERY_URL ?? "http://127.0.0.1:3000",
  apiKey: process.env.RECOVERY_KEY ?? "",
});

/** One paid generation for one order: asked for, sent at most once, its outcome reported. */
export async function generate(order: { id: string; prompt: string }) {
  const input = { prompt: order.prompt, duration: 5 };
  const result = await recovery.submit(
    {
      operationId: order.id,
      attemptId: `${order.id}-a1`,
      provider: "replicate",
      model: "minimax/video-01",
      requestFingerprint: requestFingerprint(input),
      hold: { holdId: `hold-${order.id}`, amountMicros: 500_000, currency: "USD" },
    },
    async (ctx) => {
      // One client per send, built with the guard: Replicate's client resends a create after a lost
      // answer by itself, and through ctx.fetch at most one create reaches the wire.
      const replicate = new Replicate(guardReplicate(ctx, { auth: process.env.REPLICATE_API_TOKEN }));
      try {
        const prediction = await replicate.predictions.create({
          model: "minimax/video-01",
          input,
          signal: ctx.signal, // aborted at createTimeoutMs
          ...(ctx.webhookUrl ? { webhook: ctx.webhookUrl, webhook_events_filter: ["completed" as const] } : {}),
        });
        return { providerJobId: prediction.id };
      } catch (error) {
        const status = (error as { response?: Response }).response?.status;
        if (status === 422) throw new ProviderRejected(String(error)); // definitely not created
        throw error; // unknown: parked, never resent
      }
    },
    { createTimeoutMs: 30_000 },
  );
  if (result.sent && result.outcome === "unknown" && result.lateReport) {
    // Timed out and parked for people; an answer that still comes is reported, giving the case its job.
    console.log("the create's late answer:", await result.lateReport);
  }
  return result;
}
