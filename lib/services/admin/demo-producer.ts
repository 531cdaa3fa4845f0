import type { Db } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { requirePermission } from "../access/actor";

/**
 * The producer the demo seed parks its sample cases as (prisma/seed/demo-cases.ts): a principal
 * made up in code, not an issued key. No access_tokens row and no secret exist for it, so nothing
 * can authenticate as it; its cases and audit events still name it ("api key demo-shop").
 */
export const DEMO_PRODUCER = {
  kind: "api_key",
  apiKeyId: "00000000-0000-4000-8000-000000000001",
  name: "demo-shop",
} as const satisfies Principal;

/** The setup step the demo seed records once its cases are parked. */
export const DEMO_CASES_STEP = "demo-cases";

export type DemoProducerKey = { name: string; keyId: string; seededAt: Date };

/**
 * The demo producer, when this database was seeded with the demo cases (demo mode only), so the
 * API keys page can say who parked them although no stored key did.
 */
export async function findDemoProducerKey(db: Db, actor: Principal): Promise<DemoProducerKey | null> {
  requirePermission(actor, "admin:api_keys");
  const step = await db.setupStep.findUnique({ where: { name: DEMO_CASES_STEP } });
  return step ? { name: DEMO_PRODUCER.name, keyId: DEMO_PRODUCER.apiKeyId, seededAt: step.appliedAt } : null;
}
