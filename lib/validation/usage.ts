import { z } from "zod";
import { MIN_REASON_CHARS } from "@/lib/domain/unexplained-charges";
import { PROVIDERS_WITH_JOB_COST, USAGE_FORMATS } from "@/lib/domain/usage";
import { evidenceText, id, providerName } from "./common";

/**
 * Largest export text one import reads (decision 073): what a server action carries (1 MB). The
 * API's JSON body reader stops at its own 64 KB first, so a larger file goes through the console.
 */
export const MAX_USAGE_FILE_CHARS = 900_000;

/** A provider's usage or invoice export, as its text (CSV, or fal's billing events as JSON), in one of the shapes the import reads. */
export const usageImportSchema = z.strictObject({
  provider: providerName,
  format: z.enum(USAGE_FORMATS),
  fileName: z.string().trim().min(1).max(200),
  content: z.string().min(1).max(MAX_USAGE_FILE_CHARS),
});

/** Reads a provider's own per-job cost from its API: Runway's tasks and fal's billing events say theirs. */
export const providerCostsSchema = z.strictObject({
  provider: z.enum(PROVIDERS_WITH_JOB_COST),
  limit: z.coerce.number().int().min(1).max(200).catch(50),
});

export const usageGapQuerySchema = z.strictObject({
  days: z.coerce.number().int().min(1).max(366).catch(30),
});

/** Finance's list of charges no operation explains (decision 074): a page, optionally of one provider. */
export const unexplainedChargesQuerySchema = z.strictObject({
  provider: providerName.optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
  pageSize: z.coerce.number().int().min(1).max(100).catch(25),
});

/** Which charge: a provider job, or one usage line that names no job. */
const chargeKey = {
  provider: providerName,
  providerJobId: id(300).optional(),
  usageLineId: z.uuid().optional(),
};
const oneKey = (input: { providerJobId?: string | undefined; usageLineId?: string | undefined }) =>
  (input.providerJobId === undefined) !== (input.usageLineId === undefined);
const ONE_KEY = { message: "name either the provider job or the usage line", path: ["providerJobId"] };

/**
 * Attach an unexplained job to the send that made it, through the ownership rule: the case's
 * uncertain submission, or the named job-less attempt of its operation (decision 080).
 */
export const attachUnexplainedSchema = z.strictObject({
  provider: providerName,
  providerJobId: id(300),
  caseId: z.uuid(),
  attemptId: id().optional(),
  evidence: evidenceText,
});
export type AttachUnexplainedInput = z.infer<typeof attachUnexplainedSchema>;

/** Explain a charge as made outside the product, with the reason finance knows it by. */
export const knownOutsideSchema = z
  .strictObject({
    ...chargeKey,
    reason: evidenceText.refine((text) => text.length >= MIN_REASON_CHARS, {
      message: `say in at least ${MIN_REASON_CHARS} characters why it was made outside the product`,
    }),
  })
  .refine(oneKey, ONE_KEY);
export type KnownOutsideInput = z.infer<typeof knownOutsideSchema>;

export const ledgerVersusInvoiceQuerySchema = z.strictObject({ provider: providerName.optional() });

/** The holds charged that no imported line names (decision 084): a page, optionally of one provider. */
export const holdsNotInvoicedQuerySchema = z.strictObject({
  provider: providerName.optional(),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

/**
 * Move a job from the send that records it to the send that made it (decision 084): the target is
 * named as an attach names it, and finance says how it knows.
 */
export const moveJobSchema = z.strictObject({
  provider: providerName,
  providerJobId: id(300),
  caseId: z.uuid(),
  attemptId: id().optional(),
  evidence: evidenceText.refine((text) => text.length >= MIN_REASON_CHARS, {
    message: `say in at least ${MIN_REASON_CHARS} characters how you know which send made the job`,
  }),
});
export type MoveJobInput = z.infer<typeof moveJobSchema>;
