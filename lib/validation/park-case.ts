import { z } from "zod";
import { STAGES } from "@/lib/domain/stages";
import { currency, id, isoDateTime, jsonObject, providerName } from "./common";
import { amountMicros } from "./money-amount";

export const parkCaseSchema = z
  .strictObject({
    operationId: id(),
    attemptId: id(),
    stage: z.enum(STAGES),
    provider: providerName,
    model: id(200),
    providerJobId: id(300).optional(),
    requestFingerprint: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" followed by 64 lowercase hex digits'),
    request: jsonObject.optional(),
    evidence: z.strictObject({
      summary: z.string().trim().min(1).max(2000),
      observedAt: isoDateTime,
      source: z.string().trim().min(1).max(200).optional(),
      details: jsonObject.optional(),
    }),
    counters: z
      .strictObject({
        pollAttempts: z.number().int().min(0).max(1_000_000).optional(),
        deliveryAttempts: z.number().int().min(0).max(1_000_000).optional(),
      })
      .optional(),
    submittedAt: isoDateTime.optional(),
    retryDeadline: isoDateTime.optional(),
    hold: z.strictObject({ holdId: id(), amountMicros: amountMicros, currency }),
  })
  .superRefine((value, ctx) => {
    if ((value.stage === "polling" || value.stage === "delivery") && !value.providerJobId) {
      ctx.addIssue({ code: "custom", path: ["providerJobId"], message: `required for stage ${value.stage}` });
    }
    if (value.stage === "submission_uncertain" && value.providerJobId) {
      ctx.addIssue({
        code: "custom",
        path: ["providerJobId"],
        message: "an uncertain submission has no known job; reconcile it instead",
      });
    }
  });

export type ParkCaseInput = z.infer<typeof parkCaseSchema>;
