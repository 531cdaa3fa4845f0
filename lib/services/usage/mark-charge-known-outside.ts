import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { KnownOutsideInput } from "@/lib/validation/usage";
import { requirePermission, requireUnscoped } from "../access/actor";
import { toTotal } from "../finance/finance-micros";
import { explainLineOutside } from "./explain-line-outside";
import { LOST_CHARGE, lockOpenCharge, resolveListedJob } from "./open-charge";

/**
 * Finance explains a charge as made outside the product (decision 074): a client's hidden retry, a
 * script, a test. Its unexplained usage lines are booked as outside charges through the money
 * writer, so the ledger equals the provider's invoice, and its listed job stops counting; later
 * lines of the same job are booked the same way on import. A job an operation owns is not outside
 * the product. The charge names no producer, so only a person who sees every producer may
 * (decision 035). Compare-and-set on "still unexplained", with one audit row, in one transaction.
 */
export async function markChargeKnownOutside(db: Db, actor: Principal, input: KnownOutsideInput) {
  const user = requireUnscoped(requirePermission(actor, "usage:import"));
  return inTransaction(db, async (tx) => {
    const charge = await lockOpenCharge(tx, input);
    if (charge.jobId !== null) {
      const owner = await tx.attempt.findUnique({
        where: { provider_providerJobId: { provider: input.provider, providerJobId: charge.jobId } },
        select: { id: true },
      });
      if (owner)
        throw new AppError("conflict", "An operation owns this job now, so it was not made outside the product.");
    }
    const booked = new Map<string, bigint>();
    for (const line of charge.lines) {
      if (!(await explainLineOutside(tx, user, line, input.reason))) throw LOST_CHARGE();
      booked.set(line.currency, (booked.get(line.currency) ?? 0n) + line.amount_micros);
    }
    if (charge.listedJob !== null)
      await resolveListedJob(tx, user, charge.listedJob, { resolution: "known_outside", reason: input.reason });
    const money = [...booked].map(([currency, micros]) => ({ currency, micros: toTotal(micros) }));
    await recordAudit(tx, {
      actor: user,
      kind: "unexplained_charge_known_outside",
      after: {
        provider: input.provider,
        providerJobId: charge.jobId,
        usageLineIds: charge.lines.map((line) => line.id),
        listed: charge.listedJob !== null,
        booked: money,
      },
      evidence: { text: input.reason },
    });
    return { provider: input.provider, providerJobId: charge.jobId, lines: charge.lines.length, booked: money };
  });
}
