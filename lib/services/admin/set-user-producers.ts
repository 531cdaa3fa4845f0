import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { SetUserProducersInput } from "@/lib/validation/admin";
import { requirePermission } from "../access/actor";
import { knownProducers } from "./known-producers";

/**
 * Limits a person to some producers, or (an empty list) lets them see every producer again
 * (decision 035). Sessions read the scope on every request, so it applies from the next one. An
 * admin acts for the whole deployment and cannot be limited.
 */
export async function setUserProducers(db: Db, actor: Principal, input: SetUserProducersInput) {
  const admin = requirePermission(actor, "admin:users");
  return inTransaction(db, async (tx) => {
    // Serialises with a role change on the same person, so "admin and limited" cannot slip between them.
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${input.userId}::uuid FOR UPDATE`;
    const target = await tx.user.findUnique({ where: { id: input.userId } });
    if (!target) throw new AppError("not_found", "No such user.");
    if (input.producers.length > 0 && target.roles.includes("admin")) {
      throw new AppError("invalid_request", "An admin acts for every producer and cannot be limited to some.");
    }
    // A mistyped name would save a scope that shows nothing (decision 057): only known producers.
    const known = new Set(await knownProducers(tx));
    const unknown = input.producers.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      const message = `No producer is called ${unknown.map((name) => `“${name}”`).join(", ")}: choose from the producers that have API keys or operations.`;
      throw new AppError("unknown_producer", message, { issues: [{ path: "producers", message }] });
    }
    const before = [...target.producerScope].sort();
    if (before.join() === input.producers.join()) return { id: target.id, producers: before };
    await tx.user.update({ where: { id: target.id }, data: { producerScope: input.producers } });
    await recordAudit(tx, {
      actor: admin,
      kind: "user_producers_changed",
      before: { id: target.id, email: target.email, producers: before },
      after: { id: target.id, email: target.email, producers: input.producers },
    });
    return { id: target.id, producers: input.producers };
  });
}
