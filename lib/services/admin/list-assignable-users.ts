import type { Db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/prisma/client";
import type { Principal } from "@/lib/domain/principal";
import type { ProducerScope } from "@/lib/domain/producer-scope";
import { requirePermission, visibleProducers } from "../access/actor";

/**
 * Active reviewers who may see cases of the given producers (decision 035): those who see every
 * producer, and those limited to some when one of theirs is among them. `null`: any reviewer.
 */
export function assignableWhere(producers: ProducerScope): Prisma.UserWhereInput {
  return {
    active: true,
    roles: { has: "reviewer" },
    ...(producers
      ? { OR: [{ producerScope: { isEmpty: true } }, { producerScope: { hasSome: [...producers] } }] }
      : {}),
  };
}

/**
 * The people one case can be assigned to: active reviewers who may see its producer. Asked by a
 * person limited to other producers, nobody: another producer's staff are not theirs to list.
 */
export async function listAssignableUsers(db: Db, actor: Principal, producer: string) {
  requirePermission(actor, "case:assign");
  if (visibleProducers(actor, [producer])?.length === 0) return [];
  return db.user.findMany({
    where: assignableWhere([producer]),
    orderBy: { name: "asc" },
    select: { id: true, name: true, email: true },
  });
}
