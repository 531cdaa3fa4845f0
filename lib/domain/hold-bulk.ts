import { completedSend, type SendFacts, unknownSendOutcome } from "./send-outcome";

/** Finance's bulk decisions on holds of resolved cases (decision 065). */
export const HOLD_BULK_VERBS = ["settle", "release"] as const;
export type HoldBulkVerb = (typeof HOLD_BULK_VERBS)[number];

/**
 * Why a bulk settle or release leaves a hold alone, or null when it would decide it. A bulk settle
 * charges the whole hold, so it takes only holds whose job the provider completed (rule 7); a bulk
 * release only holds whose send is known to have bought nothing. A hold whose send the provider may
 * still complete is neither (rule 18): finance decides it one at a time, or writes it off.
 */
export function holdBulkRefusal(verb: HoldBulkVerb, facts: SendFacts): { code: string; message: string } | null {
  const unknown = unknownSendOutcome(facts);
  if (unknown) return { code: "send_outcome_unknown", message: `outcome unknown: ${unknown} (rule 18)` };
  const completed = completedSend(facts);
  if (verb === "release" && completed) return { code: "send_completed", message: completed };
  if (verb === "settle" && !completed) {
    return {
      code: "nothing_completed",
      message: "no completed job is known, so there is no charge to settle in bulk: release it, or settle it alone",
    };
  }
  return null;
}
