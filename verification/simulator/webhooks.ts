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
type Body = (status: "final" | "processing") => unknown;
/** A webhook waiting for its sender to deliver it (see `manual`), once the job completes. */
export type HeldWebhook = { job: SimJob; url: string; body: Body };

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
  private held: HeldWebhook[] = [];

  /**
   * `manual`: nothing is sent on a timer; each scheduled webhook is held until its sender takes it
   * (`takeHeld`) and delivers it (`deliver`) when and how it chooses, as a simulation on its own
   * clock does.
   */
  constructor(
    replicateSecret?: string,
    private readonly manual = false,
  ) {
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
  schedule(job: SimJob, url: string, now: number, body: Body): void {
    if (job.outcome === "stuck") return;
    if (this.manual) {
      this.held.push({ job, url, body });
      return;
    }
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

  /** As new: nothing pending (no timer of a cleared job fires into the next test), sent, held or faulty. */
  reset(): void {
    this.stop();
    this.held = [];
    this.sent.length = 0;
    this.faults = { ...NO_FAULTS };
  }

  /** The webhooks scheduled since the last call (manual mode). */
  takeHeld(): HeldWebhook[] {
    const taken = this.held;
    this.held = [];
    return taken;
  }

  /**
   * Sends a job's final event with `faults` (the sender's own by default); `fetchImpl` carries
   * it, and message IDs are derived from `idSeed` when given (a replayable run), random otherwise.
   */
  async deliver(
    job: SimJob,
    url: string,
    body: Body,
    faults: WebhookFaults = this.faults,
    options: { idSeed?: string; fetchImpl?: typeof fetch } = {},
  ): Promise<number[]> {
    const messageId = (suffix: string) =>
      options.idSeed
        ? `msg_${createHash("sha256").update(`${options.idSeed} ${suffix}`).digest("hex").slice(0, 24)}`
        : `msg_${randomBytes(12).toString("hex")}`;
    const post = (raw: string, id: string, valid: boolean) => this.post(job, url, raw, id, valid, options.fetchImpl);
    const final = JSON.stringify(body("final"));
    const id = messageId("final");
    const answers: (number | null)[] = [];
    if (faults.badSignatureFirst) answers.push(await post(final, id, false));
    answers.push(await post(final, id, true));
    if (faults.duplicate) answers.push(await post(final, id, true));
    if (faults.lateProcessing)
      answers.push(await post(JSON.stringify(body("processing")), messageId("processing"), true));
    return answers.map((answer) => answer ?? 0);
  }

  private async post(
    job: SimJob,
    url: string,
    raw: string,
    id: string,
    valid: boolean,
    fetchImpl: typeof fetch = fetch,
  ): Promise<number | null> {
    const now = new Date();
    const headers =
      job.provider === "replicate" ? this.replicateHeaders(id, now, raw) : this.falHeaders(job.id, now, raw);
    if (!valid) {
      const key = job.provider === "replicate" ? "webhook-signature" : "x-fal-webhook-signature";
      headers[key] = job.provider === "replicate" ? "v1,AAAA" : "00".repeat(64);
    }
    const status = (JSON.parse(raw) as { status?: string }).status ?? "";
    const answer = await fetchImpl(url, {
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
    return answer;
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
