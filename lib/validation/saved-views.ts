import { z } from "zod";

export const saveViewSchema = z.strictObject({
  name: z.string().trim().min(1, "name the view").max(60, "at most 60 characters"),
  /** The queue's URL query, e.g. "stage=polling&sort=amount" (re-read and re-written by the service). */
  query: z.string().max(2000),
});
export type SaveViewInput = z.infer<typeof saveViewSchema>;

export const deleteViewSchema = z.strictObject({ id: z.uuid() });
