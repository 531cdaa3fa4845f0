import { AppError } from "@/lib/errors";
import { providerJobIdProblem } from "@/lib/providers/registry";

/**
 * Refuses a job ID the provider's adapter could never read (a Veo job named by its short ID instead
 * of its operation name): taken in, it would leave a case whose every status check fails until
 * someone escalates it. Checked wherever an ID enters: a park, a producer's report, an attach.
 */
export function requireReadableJobId(provider: string, providerJobId: string | null | undefined): void {
  if (!providerJobId) return;
  const problem = providerJobIdProblem(provider, providerJobId);
  if (problem) {
    throw new AppError("invalid_request", `The provider job ID is not one ${provider} issues: ${problem}.`, {
      issues: [{ path: "providerJobId", message: problem }],
    });
  }
}
