import { z } from "zod";
import { parseQueueParams, queueQueryString } from "./queue-params";

export const saveViewSchema = z.strictObject({
  name: z.string().trim().min(1, "name the view").max(60, "at most 60 characters"),
  /**
   * The queue's URL query, e.g. "stage=polling&sort=amount", read as the queue reads it and written
   * back in its own words without a page cursor, so a saved view always opens on its first page.
   */
  query: z
    .string()
    .max(2000)
    .transform((text, ctx) => {
      const { query, problem } = parseQueueParams(Object.fromEntries(new URLSearchParams(text)));
      if (problem) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      const { cursor: _cursor, limit: _limit, ...filter } = query;
      return queueQueryString(filter);
    }),
});
export type SaveViewInput = z.infer<typeof saveViewSchema>;

export const deleteViewSchema = z.strictObject({ id: z.uuid() });

export const shareViewSchema = z.strictObject({ id: z.uuid(), shared: z.boolean() });
