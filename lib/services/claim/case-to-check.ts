import type { Db } from "@/lib/db/client";

export type CaseToCheck = { provider: string; model: string; providerJobId: string | null; pollAttempts: number };

/**
 * What executing a claimed action needs to know about its case beyond what the claim returns:
 * which provider and model to ask, and how many checks were made so far (the backoff grows with them).
 */
export async function caseToCheck(db: Db, caseId: string): Promise<CaseToCheck> {
  return db.case.findUniqueOrThrow({
    where: { id: caseId },
    select: { provider: true, model: true, providerJobId: true, pollAttempts: true },
  });
}
