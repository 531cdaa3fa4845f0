import { z } from "zod";

export const idParams = z.object({ id: z.uuid() });
export const operationParams = z.object({ operationId: z.string().min(1).max(200) });
export const replacementsQuery = z.strictObject({
  status: z.enum(["authorized", "acknowledged", "withdrawn"]).default("authorized"),
});
