import { z } from "zod";

/** A worker loop's tick: who is asking (for leases and logs) and how many actions it takes at most. */
export const tickSchema = z.strictObject({
  workerId: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, "letters, digits and . _ : - (up to 100)"),
  maxTasks: z.number().int().min(1).max(50).default(10),
});
