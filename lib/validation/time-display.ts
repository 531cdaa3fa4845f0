import { z } from "zod";

/**
 * How a person reads times in the console: in their browser's own zone (the default) or in UTC,
 * chosen on the Profile page and kept in a cookie of this browser (decision 062).
 */
export const TIME_DISPLAYS = ["local", "utc"] as const;
export type TimeDisplay = (typeof TIME_DISPLAYS)[number];

export const TIME_DISPLAY_COOKIE = "console-times";

export const timeDisplaySchema = z.object({ times: z.enum(TIME_DISPLAYS) }).strict();

/** The cookie's value as a choice; anything else (absent, edited) reads as the default, local time. */
export function readTimeDisplay(value: string | undefined): TimeDisplay {
  return value === "utc" ? "utc" : "local";
}
