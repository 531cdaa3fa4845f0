import { createHash, randomUUID } from "node:crypto";
import type { PrismaClient } from "@/lib/db/client";
import { CHARGE_KINDS } from "@/lib/domain/holds";
import type { Principal } from "@/lib/domain/principal";
import type { Role } from "@/lib/domain/roles";
import type { Stage } from "@/lib/domain/stages";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import type { ParkCaseInput } from "@/lib/validation/park-case";
import type { OutcomeReportInput, PermitRequestInput } from "@/lib/validation/permits";

let counter = 0;
const next = () => `${Date.now().toString(36)}-${++counter}`;

export async function makeUser(db: PrismaClient, roles: Role[]): Promise<UserActor> {
  const email = `${roles.join("-") || "none"}-${next()}@example.com`;
  const user = await db.user.create({ data: { email, name: email, roles } });
  return { kind: "user", userId: user.id, email, name: user.name, roles, producers: null };
}

export function producer(name = "shop-app"): Extract<Principal, { kind: "api_key" }> {
  return { kind: "api_key", apiKeyId: randomUUID(), name };
}

export function worker(workerId = `w-${next()}`): Extract<Principal, { kind: "worker" }> {
  return { kind: "worker", tokenId: randomUUID(), name: "test-worker", workerId };
}

/** Gives each producer an API key, so it is a known producer a person's scope may name (decision 057). */
export async function registerProducers(db: PrismaClient, ...producers: { name: string }[]): Promise<void> {
  for (const { name } of producers) await createAccessToken(db, "cli", { kind: "api_key", name });
}

export const fingerprint = (seed: string) => `sha256:${createHash("sha256").update(seed).digest("hex")}`;

export function parkInput(stage: Stage, overrides: Partial<ParkCaseInput> = {}): ParkCaseInput {
  const operationId = overrides.operationId ?? `order-${next()}`;
  return {
    operationId,
    attemptId: `${operationId}-a1`,
    stage,
    provider: "replicate",
    model: "omni-flash-720p",
    ...(stage === "polling" || stage === "delivery" ? { providerJobId: `job-${operationId}` } : {}),
    requestFingerprint: fingerprint(operationId),
    evidence: { summary: "create timed out after 30 s", observedAt: "2026-11-29T10:00:00Z", source: "shop-app" },
    submittedAt: "2026-11-29T09:59:30Z",
    hold: { holdId: `hold-${operationId}`, amountMicros: 100_000, currency: "USD" },
    ...overrides,
  };
}

/** A send permit request for a fresh operation (DESIGN 6a): the producer's create is due within 10 minutes. */
export function permitInput(overrides: Partial<PermitRequestInput> & { operationId?: string } = {}) {
  const { operationId = `order-${next()}`, ...rest } = overrides;
  const input: PermitRequestInput = {
    attemptId: `${operationId}-a1`,
    requestFingerprint: fingerprint(operationId),
    provider: "replicate",
    model: "omni-flash-720p",
    hold: { holdId: `hold-${operationId}`, amountMicros: 100_000, currency: "USD" },
    sendDeadline: new Date(Date.now() + 10 * 60_000).toISOString(),
    ...rest,
  };
  return { operationId, input };
}

/** A producer's park at delivery of a send it made under a permit (decision 078): the permit's own facts. */
export function parkOfPermit(
  operationId: string,
  input: PermitRequestInput,
  providerJobId: string,
  overrides: Partial<ParkCaseInput> = {},
): ParkCaseInput {
  return parkInput("delivery", {
    operationId,
    attemptId: input.attemptId,
    provider: input.provider,
    model: input.model,
    requestFingerprint: input.requestFingerprint,
    providerJobId,
    hold: input.hold,
    ...overrides,
  });
}

/** A producer's report on a permit's send. */
export function outcomeInput(
  operationId: string,
  token: number,
  outcome: OutcomeReportInput["outcome"],
  providerJobId?: string,
): OutcomeReportInput {
  return {
    operationId,
    token,
    outcome,
    ...(providerJobId ? { providerJobId } : {}),
    evidence: { summary: `the create call ended: ${outcome}`, observedAt: "2026-12-02T10:00:00Z" },
  };
}

/** A delivered video's row, as the worker publishes it for the case's attempt (the file is the caller's). */
export function publishedAsset(
  db: PrismaClient,
  kase: { id: string; attemptRef: string },
  file: { storageKey: string; sizeBytes: number; sha256: string },
) {
  return db.asset.create({
    data: {
      caseId: kase.id,
      attemptRef: kase.attemptRef,
      actionId: randomUUID(),
      fencingToken: 1n,
      outputIndex: 0,
      storageKey: file.storageKey,
      sha256: file.sha256,
      sizeBytes: BigInt(file.sizeBytes),
      publishedAt: new Date(),
    },
  });
}

/** What the ledger charged a hold: its settle, overage, late charge and adjustment entries. */
export async function chargedOn(db: PrismaClient, holdRef: string): Promise<bigint> {
  const entries = await db.ledgerEntry.findMany({
    where: { holdRef, kind: { in: [...CHARGE_KINDS] } },
    select: { amountMicros: true },
  });
  return entries.reduce((sum, e) => sum + e.amountMicros, 0n);
}
