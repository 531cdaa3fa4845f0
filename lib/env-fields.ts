import { z } from "zod";

/** An optional setting: blank counts as unset. */
export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

export const optionalUrl = optionalText.pipe(z.url().optional());

/** An optional whole number of at least 1: blank counts as unset. */
export const optionalPositiveInteger = optionalText.pipe(z.coerce.number<string | undefined>().int().min(1).optional());
