import type { PrismaClient } from "@/lib/db/client";
import type { Stage } from "@/lib/domain/stages";
import type { ProviderName } from "@/lib/providers/types";
import { parkCase } from "@/lib/services/case/park-case";
import { parkInput, type producer } from "@/tests/integration/fixtures";

/**
 * A parked case whose hold a usage line can name (decision 073). At delivery by default: the job
 * completed, so the outcome is known and a line settles the hold at once; a job still being
 * checked (`polling`) makes the line wait for the outcome (decision 077).
 */
export async function parkedHold(
  db: PrismaClient,
  input: {
    currency: string;
    amountMicros: number;
    who: ReturnType<typeof producer>;
    provider?: ProviderName;
    job?: string;
    stage?: Stage;
  },
) {
  const { currency, amountMicros, provider = "replicate" } = input;
  const park = parkInput(input.stage ?? "delivery", {
    provider,
    model: provider === "runway" ? "gen4_turbo" : "omni-flash-720p",
    hold: { holdId: `hold-${currency}-${Math.random().toString(36).slice(2)}`, amountMicros, currency },
    ...(input.job ? { providerJobId: input.job } : {}),
  });
  const { caseId } = await parkCase(db, input.who, park);
  const hold = await db.hold.findFirstOrThrow({ where: { caseId: String(caseId) } });
  return { caseId: String(caseId), hold, jobId: park.providerJobId ?? "" };
}

/** What the ledger charged a hold: settle, overage, late charge and every adjustment. */
export async function ledgerCharge(db: PrismaClient, holdRef: string): Promise<bigint> {
  const entries = await db.ledgerEntry.findMany({ where: { holdRef } });
  return entries
    .filter((e) => ["settle", "overage", "late_charge", "adjustment"].includes(e.kind))
    .reduce((sum, e) => sum + e.amountMicros, 0n);
}

/** A usage export in the generic shape, one job per line. */
export const usageCsv = (rows: string[]) => `provider_job_id,amount,currency,time\n${rows.join("\n")}\n`;
