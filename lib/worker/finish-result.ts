import type { Verdict } from "@/lib/domain/provider-answer";
import type { FinishResult } from "@/lib/services/claim/finish-action";
import { nextCheckDelayMs } from "./next-check-delay";
import type { WorkerContext } from "./worker-context";

export type EndingVerdict = Exclude<Verdict, { kind: "deliver" }>;

/** How a verdict that ends (or hands back) the claim is written by finish-action. */
export function finishResultOf(
  verdict: EndingVerdict,
  ctx: Pick<WorkerContext, "pollBaseSeconds" | "pollMaxSeconds" | "random">,
  now = Date.now(),
): FinishResult {
  switch (verdict.kind) {
    case "keep_polling": {
      const delay = nextCheckDelayMs(verdict.checks, ctx.pollBaseSeconds, ctx.pollMaxSeconds, ctx.random);
      return { kind: "rescheduled", evidence: verdict.evidence, nextCheckAt: new Date(now + delay) };
    }
    case "retry_later":
      return { kind: "rescheduled", evidence: verdict.evidence, nextCheckAt: new Date(now + verdict.afterMs) };
    case "record_failed":
      return { kind: "moved", stage: verdict.stage, evidence: verdict.evidence };
    case "outputs_unavailable":
      return { kind: "outputs_unavailable", evidence: verdict.evidence };
    case "park":
      return { kind: "unresolved", evidence: verdict.evidence };
  }
}
