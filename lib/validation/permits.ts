import { z } from "zod";
import { PERMIT_OUTCOMES } from "@/lib/domain/send-permits";
import { currency, id, isoDateTime, jsonObject, providerName } from "./common";
import { amountMicros } from "./money-amount";

const fingerprint = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" followed by 64 lowercase hex digits');

/** DESIGN 6a: what a producer states before it sends a paid create. */
export const permitRequestSchema = z.strictObject({
  attemptId: id(),
  requestFingerprint: fingerprint,
  provider: providerName,
  model: id(200),
  hold: z.strictObject({ holdId: id(), amountMicros: amountMicros, currency }),
  /** When the producer will have reported the send's outcome by; past it, the product parks the attempt. */
  sendDeadline: isoDateTime,
  request: jsonObject.optional(),
});
export type PermitRequestInput = z.infer<typeof permitRequestSchema>;

/** What the send came to, under the permit's token. */
export const outcomeReportSchema = z
  .strictObject({
    operationId: id(),
    token: z.number().int().min(1).max(1_000_000),
    outcome: z.enum(PERMIT_OUTCOMES),
    providerJobId: id(300).optional(),
    /**
     * With `completed`: the output URLs the provider handed the producer, so the product can keep a
     * copy before the provider deletes them (the output vault, decision 075).
     */
    outputs: z
      .array(
        z.strictObject({
          url: z.url({ protocol: /^https?$/ }).max(4000),
          contentType: z.string().trim().min(1).max(200).optional(),
          size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
        }),
      )
      .min(1)
      .max(20)
      .optional(),
    evidence: z.strictObject({
      summary: z.string().trim().min(1).max(2000),
      observedAt: isoDateTime,
      details: jsonObject.optional(),
    }),
  })
  .superRefine((value, ctx) => {
    if (value.outcome === "accepted" && !value.providerJobId) {
      ctx.addIssue({ code: "custom", path: ["providerJobId"], message: "required when the provider accepted the job" });
    }
    if (value.outputs && value.outcome !== "completed") {
      ctx.addIssue({ code: "custom", path: ["outputs"], message: "only a completed job has outputs" });
    }
    if ((value.outcome === "rejected" || value.outcome === "unknown") && value.providerJobId) {
      ctx.addIssue({
        code: "custom",
        path: ["providerJobId"],
        message: `a ${value.outcome} send has no job; report "accepted" when the provider returned one`,
      });
    }
  });
export type OutcomeReportInput = z.infer<typeof outcomeReportSchema>;

export const attemptParams = z.object({ attemptId: z.string().min(1).max(200) });

/** A provider webhook's own `?ref=`: the operation reference this deployment signed into the URL. */
export const webhookQuery = z.object({ ref: z.string().max(2000).optional() });
/** Replicate posts the prediction; fal a queue result. Read further only after the signature checked out. */
export const replicateWebhookBody = z.looseObject({ id: z.string().min(1).max(300), status: z.string().max(100) });
export const falWebhookBody = z.looseObject({ request_id: z.string().min(1).max(300), status: z.string().max(100) });
