import { z } from "zod";
import {
  ceilingMessage,
  DEFAULT_MONEY_CEILING_MICROS,
  HARD_MONEY_CEILING_MICROS,
  MAX_LIMIT_MICROS,
} from "@/lib/domain/money-ceiling";
import { env } from "@/lib/env";

/** Marks an issue as the money ceiling's, so parseInput answers with its own code (decision 051). */
export const CEILING_ISSUE = "amount_above_ceiling";

/** The deployment's ceiling, read when a request is parsed (never at import, so nothing throws on load). */
function configuredCeiling(): number {
  return env().MONEY_CEILING_MICROS;
}

function aboveCeiling(ceiling: () => number) {
  return (ctx: z.core.ParsePayload<number>) => {
    const limit = Math.min(ceiling(), HARD_MONEY_CEILING_MICROS);
    if (ctx.value > limit) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: ceilingMessage(limit),
        params: { code: CEILING_ISSUE, ceilingMicros: limit },
      });
    }
  };
}

/**
 * One amount a caller sends: a hold, a settle charge, a replacement's amount. Positive, whole and
 * at most the configured money ceiling (MONEY_CEILING_MICROS), never anywhere near 2^53.
 */
export const amountMicros = z
  .number()
  .int()
  .positive()
  .check(aboveCeiling(configuredCeiling))
  .meta({
    description: `Micro-units of the currency, at most the deployment's money ceiling (MONEY_CEILING_MICROS, by default ${DEFAULT_MONEY_CEILING_MICROS}); above it: 400 amount_above_ceiling`,
  });

/** A spend limit is a window's total: zero or more, at most the hard maximum (the database's CHECK). */
export const limitMicros = z
  .number()
  .int()
  .min(0)
  .check(aboveCeiling(() => MAX_LIMIT_MICROS));

export function isCeilingIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === "custom" && (issue.params as { code?: string } | undefined)?.code === CEILING_ISSUE;
}
