import { createRecoveryClient, ProviderRejected, requestFingerprint } from "@video-job-recovery/producer-sdk";

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
    async ({ webhookUrl, signal }) => {
      const res = await fetch("https://api.replicate.com/v1/models/minimax/video-01/predictions", {
        method: "POST",
        signal, // aborted at createTimeoutMs
        headers: { authorization: `Bearer ${process.env.REPLICATE_API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ input, webhook: webhookUrl, webhook_events_filter: ["completed"] }),
      });
      if (res.status === 422) throw new ProviderRejected(await res.text()); // definitely not created
      if (!res.ok) throw new Error(`Replicate answered ${res.status}`); // unknown: parked, never resent
      const prediction = (await res.json()) as { id: string };
      return { providerJobId: prediction.id };
    },
    { createTimeoutMs: 30_000 },
  );
  if (result.sent && result.outcome === "unknown" && result.lateReport) {
    // Timed out and parked for people; an answer that still comes is reported, giving the case its job.
    console.log("the create's late answer:", await result.lateReport);
  }
  return result;
}
