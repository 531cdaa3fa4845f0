import type { Db, Prisma } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { actorColumns } from "./actor";

export type AuditInput = {
  actor: Principal;
  kind: string;
  caseId?: string | null;
  episode?: number | null;
  before?: Prisma.InputJsonValue | null;
  after?: Prisma.InputJsonValue | null;
  evidence?: Prisma.InputJsonValue | null;
};

/** Called inside the transaction that makes the change, so the change and its record commit together. */
export async function recordAudit(tx: Db, input: AuditInput): Promise<void> {
  await tx.auditEvent.create({
    data: {
      ...actorColumns(input.actor),
      kind: input.kind,
      caseId: input.caseId ?? null,
      episode: input.episode ?? null,
      ...(input.before != null ? { before: input.before } : {}),
      ...(input.after != null ? { after: input.after } : {}),
      ...(input.evidence != null ? { evidence: input.evidence } : {}),
    },
  });
}
