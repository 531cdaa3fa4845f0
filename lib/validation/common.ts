import { z } from "zod";

export const id = (max = 200) => z.string().trim().min(1).max(max);
export const isoDateTime = z.iso.datetime({ offset: true });
export const micros = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const currency = z.string().regex(/^[A-Z]{3}$/, "a three-letter ISO 4217 code, e.g. USD");
export const evidenceText = z.string().trim().min(1, "evidence is required").max(4000);
export const jsonObject = z.record(z.string(), z.unknown());
