import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { completedAt, type SimJob } from "./jobs";

/**
 * Faults of the providers' webhook deliveries, set through POST /__admin/webhooks: the same event
 * sent twice, a stale `processing` event after the final one, a first delivery with a broken
 * signature, and a delay before each (reordering events of different jobs).
 */
export type WebhookFaults = {
  duplicate: boolean;
  lateProcessing: boolean;
  badSignatureFirst: boolean;
  delayMs: number;
};
export type SentWebhook = { provider: string; jobId: string; status: string; signed: boolean; answer: number | null };

const MAX_SENT = 5_000;
const NO_FAULTS: WebhookFaults = { duplicate: false, lateProcessing: false, badSignatureFirst: false, delayMs: 0 };

/**
 * Signed webhooks as the two providers send them: Replicate the Standard Webhooks way with a
 * `whsec_` secret, fal with an Ed25519 key published in a JWKS (served at /fal-jwks/.well-known/jwks.json).
 * A job created with a webhook URL gets its final event once it completes, on the real clock.
 */
export class WebhookSender {
  readonly replicateSecret: string;
  private readonly falKey: KeyObject;
  private readonly falPublic: KeyObject;
  private readonly timers = new Set<NodeJS.Timeout>();
  faults: WebhookFaults = { ...NO_FAULTS };
  readonly sent: SentWebhook[] = [];

  constructor(replicateSecret?: string) {
    this.replicateSecret = replicateSecret ?? `whsec_${randomBytes(32).toString("base64")}`;
    const pair = generateKeyPairSync("ed25519");
    this.falKey = pair.privateKey;
    this.falPublic = pair.publicKey;
  }

  jwks(): object {
    return {
      keys: [{ kty: "OKP", crv: "Ed25519", kid: "simulator-1", x: this.falPublic.export({ format: "jwk" }).x }],
    };
  }

  /** Sends the job's final event to `url` when it completes (`body(status)` builds it at send time). */
  schedule(job: SimJob, url: string, now: number, body: (status: "final" | "processing") => unknown): void {
    if (job.outcome === "stuck") return;
    const wait = Math.max(0, completedAt(job) - now) + this.faults.delayMs;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.deliver(job, url, body).catch(() => {});
    }, wait);
    timer.unref();
    this.timers.add(timer);
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async deliver(job: SimJob, url: string, body: (status: "final" | "processing") => unknown) {
    const faults = this.faults;
    const final = JSON.stringify(body("final"));
    const id = `msg_${randomBytes(12).toString("hex")}`;
    if (faults.badSignatureFirst) await this.post(job, url, final, id, false);
    await this.post(job, url, final, id, true);
    if (faults.duplicate) await this.post(job, url, final, id, true);
    if (faults.lateProcessing) {
      await this.post(job, url, JSON.stringify(body("processing")), `msg_${randomBytes(12).toString("hex")}`, true);
    }
  }

  private async post(job: SimJob, url: string, raw: string, id: string, valid: boolean) {
    const now = new Date();
    const headers =
      job.provider === "replicate" ? this.replicateHeaders(id, now, raw) : this.falHeaders(job.id, now, raw);
    if (!valid) {
      const key = job.provider === "replicate" ? "webhook-signature" : "x-fal-webhook-signature";
      headers[key] = job.provider === "replicate" ? "v1,AAAA" : "00".repeat(64);
    }
    const status = (JSON.parse(raw) as { status?: string }).status ?? "";
    const answer = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: raw,
      signal: AbortSignal.timeout(15_000),
    }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status;
      },
      () => null,
    );
    this.sent.push({ provider: job.provider, jobId: job.id, status, signed: valid, answer });
    // A long demo run sends without end; the log keeps the latest, as the request log does.
    if (this.sent.length > MAX_SENT) this.sent.splice(0, this.sent.length - MAX_SENT);
  }

  private replicateHeaders(id: string, now: Date, raw: string): Record<string, string> {
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(this.replicateSecret).sign(id, now, raw),
    };
  }

  private falHeaders(requestId: string, now: Date, raw: string): Record<string, string> {
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const digest = createHash("sha256").update(raw, "utf8").digest("hex");
    const message = Buffer.from(`${requestId}\nsimulator-user\n${timestamp}\n${digest}`, "utf8");
    return {
      "x-fal-webhook-request-id": requestId,
      "x-fal-webhook-user-id": "simulator-user",
      "x-fal-webhook-timestamp": timestamp,
      "x-fal-webhook-signature": sign(null, message, this.falKey).toString("hex"),
    };
  }
}
