import { z } from "zod";
import { storedText } from "@/lib/domain/stored-text";
import { env } from "@/lib/env";
import { PROVIDER_NAMES } from "@/lib/providers/registry";

export const id = (max = 200) => z.string().trim().min(1).max(max);
export const isoDateTime = z.iso.datetime({ offset: true });
export const currency = z.string().regex(/^[A-Z]{3}$/, "a three-letter ISO 4217 code, e.g. USD");
/**
 * People's words (evidence, notes, reasons, decisions): a prompt pasted into them is digested as
 * it is parsed, under the deployment's STORE_PROMPTS like every text entering the product (DESIGN
 * rule 20), so no service or writer downstream ever holds it. Read per request, never at import.
 */
export const evidenceText = z
  .string()
  .trim()
  .min(1, "evidence is required")
  .max(4000)
  .transform((text) =>
    storedText(text, { storePrompts: env().STORE_PROMPTS === "1", limits: { maxStringLength: 4000 } }),
  );
export const jsonObject = z.record(z.string(), z.unknown());

/**
 * A provider's name where one enters from outside (a permit, a park): one of the registry's names,
 * exactly as it spells them. "Replicate" or "fal-ai" would open a case no adapter reads and no
 * price or pace matches, so it is refused with the list of names instead.
 */
export const providerName = z.enum(PROVIDER_NAMES, {
  error: () => `must be one of ${PROVIDER_NAMES.map((name) => `"${name}"`).join(", ")}, spelt exactly`,
});
