import type { Prisma } from "@/lib/db/client";
import { actorColumns, type Principal } from "@/lib/domain/principal";
import { bookOutsideCharge } from "../hold/writer/outside-charge";

type OpenLine = {
  id: string;
  provider: string;
  provider_job_id: string | null;
  amount_micros: bigint;
  currency: string;
};

/**
 * One unexplained usage line explained as a charge made outside the product (decision 074): a
 * compare-and-set on "no hold, not explained", then its outside charge through the money writer, so
 * the ledger holds what the provider billed. False, having written nothing, when the line was
 * matched or explained meanwhile.
 */
export async function explainLineOutside(
  tx: Prisma.TransactionClient,
  actor: Principal,
  line: OpenLine,
  reason: string,
): Promise<boolean> {
  const { actorLabel } = actorColumns(actor);
  const changed = await tx.$executeRaw`
    UPDATE usage_lines SET explained_at = now(), explained_by = ${actorLabel}, explanation = ${reason}
    WHERE id = ${line.id}::uuid AND hold_ref IS NULL AND explained_at IS NULL`;
  if (changed === 0) return false;
  await bookOutsideCharge(tx, {
    provider: line.provider,
    currency: line.currency,
    usageLineRef: line.id,
    amountMicros: line.amount_micros,
    note: `charged outside the product: ${reason}`,
    actorLabel,
  });
  return true;
}

/**
 * A new line whose job finance has already explained as made outside the product (its listed job,
 * or an earlier line of it) is booked the same way, with the same reason, instead of counting again.
 */
export async function explainIfKnownOutside(
  tx: Prisma.TransactionClient,
  actor: Principal,
  lineId: string,
): Promise<boolean> {
  const [line] = await tx.$queryRaw<(OpenLine & { reason: string | null })[]>`
    SELECT u.id::text, u.provider, u.provider_job_id, u.amount_micros, u.currency,
           coalesce(
             (SELECT j.reason FROM unowned_jobs j WHERE j.provider = u.provider AND j.provider_job_id = u.provider_job_id
                AND j.resolution = 'known_outside'),
             (SELECT e.explanation FROM usage_lines e WHERE e.provider = u.provider AND e.provider_job_id = u.provider_job_id
                AND e.explained_at IS NOT NULL ORDER BY e.explained_at LIMIT 1)) AS reason
    FROM usage_lines u WHERE u.id = ${lineId}::uuid AND u.provider_job_id IS NOT NULL`;
  if (!line?.reason) return false;
  return explainLineOutside(tx, actor, line, line.reason);
}
