import { z } from "zod";

/** An optional setting: blank counts as unset. */
export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

export const optionalUrl = optionalText.pipe(z.url().optional());
