import { z } from "zod";

export const idParams = z.object({ id: z.uuid() });
export const outputParams = z.object({ id: z.uuid(), assetId: z.uuid() });
/** `download=1` asks for the file as an attachment; without it, a video plays in the page. */
export const outputQuery = z.strictObject({ download: z.literal("1").optional() });
export const operationParams = z.object({ operationId: z.string().min(1).max(200) });
export const replacementsQuery = z.strictObject({
  status: z.enum(["authorized", "acknowledged", "withdrawn"]).default("authorized"),
});
