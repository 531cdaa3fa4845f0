import { stageLabel, stateLabel } from "@/components/ui/labels";

/**
 * A hold whose case is still open may still be charged: the case can yet deliver, be retried or be
 * reconciled with the provider's records. The product refuses a release only while the send's
 * outcome is unknown (DESIGN rule 18), so the person deciding earlier is told before confirming.
 */
export function OpenCaseWarning({
  hold,
  decision,
}: {
  hold: { stage: string | null; caseState: string | null };
  decision: "settle" | "release";
}) {
  if (!hold.stage || !hold.caseState || hold.caseState === "resolved") return null;
  return (
    <strong className="mt-1 block text-amber-900" data-testid="open-case-warning">
      ⚠ The case is still open ({stageLabel(hold.stage)}, {stateLabel(hold.caseState).toLowerCase()}): a charge may
      still arrive.{" "}
      {decision === "release"
        ? "If it does after this release, it is booked and flagged as charged after release."
        : "A completion reported after this settlement books nothing more: settle on the provider's final charge."}
    </strong>
  );
}
