import { verifyWebhookReference, type WebhookReference } from "@/lib/auth/webhook-reference";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { committedAlone, sqlRows } from "@/lib/db/sql-rows";
import { inTransaction } from "@/lib/db/transaction";
import { isDomainError } from "@/lib/domain/errors";
import type { Principal } from "@/lib/domain/principal";
import { sanitise } from "@/lib/domain/sanitise";
import type { OutcomeReport } from "@/lib/domain/send-permits";
import { DEFAULT_VAULT_POLICY, type VaultPolicy, type VaultSettings, vaultPolicyOf } from "@/lib/domain/vault";
import { meaningOfWebhook, type WebhookVerdict } from "@/lib/domain/webhook-evidence";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { statusForEvidence } from "@/lib/providers/outputs";
import type { JobStatus, WebhookReport } from "@/lib/providers/types";
import { type ProviderActor, requireProvider, requireWorker } from "../access/actor";
import { admitReference } from "../job-claim/admit-reference";
import { attachJobToUncertainCase } from "../permit/park-permit";
import { applyPermitReport, type LockedPermit } from "../permit/report-outcome";
import { recordVaultIntent, vaultIntentInsert } from "../vault/record-vault-intent";
import { contradictNoJobVerdict } from "./contradict-no-job";
import { type Applied, converge } from "./converge";
import { completeOwnedPermit, type OwnedPermit, selectOwnedPermit } from "./owned-completion";
import { type Found, findTarget } from "./webhook-target";

export type WebhookInput = {
  report: WebhookReport;
  reference: WebhookReference | null;
  /**
   * The reference inside the provider's signed body, where the body echoes the webhook URL: null when
   * the echoed URL carries none this deployment signed, absent when the body echoes no URL.
   */
  signedReference?: WebhookReference | null;
  signedAt: Date;
};

/**
 * A signed webhook as the route hands it over: the provider's body already read into a report (null
 * when it names no job), and the `ref` its URL carried, which counts only if this deployment signed it.
 */
export async function receiveSignedWebhook(
  db: Db,
  actor: Principal,
  input: { report: WebhookReport | null; ref?: string | undefined },
  settings: Pick<Env, "AUTH_SECRET"> & VaultSettings,
): Promise<WebhookResult> {
  const provider = requireProvider(actor);
  if (!input.report) throw new AppError("invalid_request", "The webhook names no job this deployment can read.");
  const secret = settings.AUTH_SECRET;
  const echoed = input.report.echoedRef;
  const signedReference = echoed === undefined ? undefined : secret ? verifyWebhookReference(secret, echoed) : null;
  // Inside the signature, the echoed reference is the provider's word; the URL's is only a claim.
  const reference = (secret ? verifyWebhookReference(secret, input.ref) : null) ?? signedReference ?? null;
  return receiveProviderWebhook(
    db,
    provider,
    {
      report: input.report,
      reference,
      ...(signedReference !== undefined ? { signedReference } : {}),
      signedAt: new Date(provider.signedAt),
    },
    vaultPolicyOf(settings),
  );
}
export type WebhookResult = { duplicate: boolean; outcome: string; caseId: string | null };

/**
 * DESIGN 8: a verified provider webhook is an observation like a status check, through the same
 * domain rules (lib/domain/webhook-evidence.ts). It is kept once per provider event ID; a duplicate
 * or a replay finds its row and changes nothing. What it decides is written in the same transaction
 * as the row that records it; a refusal (a job the permit records differently, say) is kept with its
 * reason and answered like any other webhook, so the provider does not retry it forever.
 */
export async function receiveProviderWebhook(
  db: Db,
  actor: Principal,
  input: WebhookInput,
  vault: VaultPolicy = DEFAULT_VAULT_POLICY,
): Promise<WebhookResult> {
  const provider = requireProvider(actor);
  const { providerJobId, status } = input.report;
  const intent = { provider: provider.provider, providerJobId, status, source: "webhook" as const };
  const quick = input.reference
    ? null
    : await keptOrUnmatched(db, provider, input, (gate) => vaultIntentInsert(intent, vault, new Date(), gate));
  const result = quick ?? (await withRefusalsKept(db, (tx, refused) => receive(tx, provider, input, refused)));
  // Decision 075: a completion no open case will copy is kept by the product, recorded after the
  // webhook's own commit (or within the owned completion's statement, decision 081) and again on the
  // provider's retry of it (idempotent per output).
  // A webhook refused or about nobody's job vouches for no one's outputs.
  if (APPLIED_OUTCOMES.has(result.outcome) && !quick?.vaultKept) await recordVaultIntent(db, intent, vault);
  return { duplicate: result.duplicate, outcome: result.outcome, caseId: result.caseId };
}

const APPLIED_OUTCOMES = new Set(["permit_reported", "observed", "converged", "attached"]);

/**
 * The two answers that need no decision, in one statement: an event kept before (a replay or a
 * retry: its row as it is), or a job nobody owns, without a reference (kept as unmatched). The same
 * statement finds an accepted permit whose job the webhook reports completed, which one more
 * statement settles (owned-completion.ts). Null when the job has another owner, or the row is being
 * written concurrently, or the completion found its permit changed: the transaction decides.
 */
async function keptOrUnmatched(
  db: Db,
  actor: ProviderActor,
  input: WebhookInput,
  vaultIntent: (gate: Prisma.Sql) => Prisma.Sql | null,
): Promise<(WebhookResult & { vaultKept?: boolean }) | null> {
  const { report } = input;
  const rows = await sqlRows<{
    duplicate: boolean | null;
    outcome: string;
    case_ref: string | null;
    permit: OwnedPermit | null;
  }>(
    db,
    Prisma.sql`
    WITH seen AS (
      SELECT outcome, case_ref FROM provider_webhooks WHERE provider = ${actor.provider} AND webhook_id = ${actor.webhookId}
    ), owned AS (
      SELECT 1 FROM attempts WHERE provider = ${actor.provider} AND provider_job_id = ${report.providerJobId}
    ), permit AS (
      ${selectOwnedPermit(actor.provider, report.providerJobId)} AND ${report.status.kind === "completed"}
    ), kept AS (
      ${insertKept(actor, input, { outcome: "unmatched", note: UNMATCHED_NOTE })}
      WHERE NOT EXISTS (SELECT 1 FROM seen) AND NOT EXISTS (SELECT 1 FROM owned)
      ON CONFLICT (provider, webhook_id) DO NOTHING
      RETURNING outcome, case_ref
    )
    SELECT false AS duplicate, outcome, case_ref, NULL::jsonb AS permit FROM kept
    UNION ALL SELECT true, outcome, case_ref, NULL FROM seen
    -- Neither, for a job nobody owns: a retry racing its first delivery (keptMeanwhile).
    UNION ALL SELECT NULL, NULL, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM owned) AND NOT EXISTS (SELECT 1 FROM seen)
    -- A completion of a job an accepted permit owns, not seen before: completeOwnedPermit.
    UNION ALL SELECT NULL, NULL, NULL, to_jsonb(permit) FROM permit WHERE NOT EXISTS (SELECT 1 FROM seen)`,
  );
  const found = rows.find((candidate) => candidate.duplicate !== null);
  const owner = rows.find((candidate) => candidate.permit !== null)?.permit;
  if (!found && owner) {
    const completed = await completeOwnedPermit(db, actor, {
      owner,
      providerJobId: report.providerJobId,
      signedAt: input.signedAt,
      status: report.status,
      keptRow: (row) => insertKept(actor, input, row),
      vaultIntent,
    });
    return completed ? { duplicate: false, outcome: "permit_reported", caseId: null, vaultKept: true } : null;
  }
  const row = found ?? (rows.length > 0 ? await keptMeanwhile(db, actor) : undefined);
  return row && row.duplicate !== null
    ? { duplicate: row.duplicate, outcome: row.outcome, caseId: row.case_ref }
    : null;
}

/**
 * A provider's retry racing its first delivery (the same `webhook-id` at once) finds no row in the
 * statement's snapshot, and its insert waits for the first one's commit and then does nothing: the
 * row committed meanwhile is read by a second statement instead of a transaction that would decide
 * nothing. Nothing found (the job has an owner, or the first is rolled back): the transaction decides.
 */
async function keptMeanwhile(
  db: Db,
  actor: ProviderActor,
): Promise<{ duplicate: boolean; outcome: string; case_ref: string | null } | undefined> {
  if (!committedAlone(db)) return undefined;
  const rows = await sqlRows<{ duplicate: boolean; outcome: string; case_ref: string | null }>(
    db,
    Prisma.sql`SELECT true AS duplicate, outcome, case_ref FROM provider_webhooks
      WHERE provider = ${actor.provider} AND webhook_id = ${actor.webhookId}`,
  );
  return rows[0];
}

const UNMATCHED_NOTE = "no operation owns this job yet";

/** A verified webhook's row, as `INSERT … SELECT` (the caller adds its conditions and conflict clause). */
function insertKept(
  actor: ProviderActor,
  input: WebhookInput,
  row: { outcome: "received" | "unmatched" | "permit_reported"; note: string | null; permitRef?: string },
): Prisma.Sql {
  const { report } = input;
  return Prisma.sql`INSERT INTO provider_webhooks (provider, webhook_id, provider_job_id, status_kind, provider_status,
                                   signed_at, reference, outcome, note, detail, request_fingerprint, model, job_created_at,
                                   permit_ref)
    SELECT ${actor.provider}, ${actor.webhookId}, ${report.providerJobId}, ${report.status.kind},
           ${"providerStatus" in report.status ? report.status.providerStatus : null}, ${input.signedAt},
           ${input.reference ? JSON.stringify(input.reference) : null}::jsonb, ${row.outcome}, ${row.note},
           ${JSON.stringify(sanitise(statusForEvidence(report.status)))}::jsonb, ${report.requestFingerprint ?? null},
           ${report.model ?? null}, ${jobCreatedAt(report)}::timestamptz, ${row.permitRef ?? null}::uuid`;
}

/** The provider's creation time, when the webhook says it and it reads as a time. */
function jobCreatedAt(report: WebhookReport): string | null {
  const at = report.createdAt ? Date.parse(report.createdAt) : Number.NaN;
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/**
 * Runs `work` in a transaction, again after a lost race; a refusal (a domain or application error)
 * rolls everything back and runs it once more with the reason, to be kept instead of applied.
 */
async function withRefusalsKept<T>(
  db: Db,
  work: (tx: Prisma.TransactionClient, refused: string | null) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTransaction(db, (tx) => work(tx, null));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "lost_race" && attempt < 2) continue;
      // A job found in use may be a race with a producer's report that committed meanwhile (its
      // unique key, not the evidence, refused this one): judge once more on what it wrote, so the
      // provider's proof can take the job back instead of being kept as a refusal for good.
      if (code === "provider_job_in_use" && attempt < 1) continue;
      if (!isDomainError(error) && !(error instanceof AppError)) throw error;
      return inTransaction(db, (tx) => work(tx, error.message));
    }
  }
}

async function receive(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  input: WebhookInput,
  refused: string | null,
): Promise<WebhookResult> {
  const [row] = await tx.$queryRaw<{ id: bigint }[]>(Prisma.sql`
    ${insertKept(actor, input, { outcome: "received", note: null })}
    ON CONFLICT (provider, webhook_id) DO NOTHING
    RETURNING id`);
  if (!row) {
    const seen = await tx.providerWebhook.findUniqueOrThrow({
      where: { provider_webhookId: { provider: actor.provider, webhookId: actor.webhookId } },
    });
    return { duplicate: true, outcome: seen.outcome, caseId: seen.caseRef };
  }
  return { duplicate: false, ...(await settleWebhook(tx, actor, input, row.id, refused, null)) };
}

/** Decides and applies what a kept webhook means, and records that on its row. */
async function settleWebhook(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  input: WebhookInput,
  rowId: bigint,
  refused: string | null,
  prefix: string | null,
): Promise<{ outcome: string; caseId: string | null }> {
  const admitted =
    input.reference && !refused
      ? await admitReference(tx, actor, {
          report: input.report,
          reference: input.reference,
          signedReference: input.signedReference,
          webhookRowId: rowId,
        })
      : null;
  const found = await findTarget(tx, actor.provider, input.report.providerJobId, input.reference);
  const keep = async (outcome: string, note: string | null, caseId = found.caseId, permitId = found.permitId) => {
    const text = [prefix, note].filter(Boolean).join("; ").slice(0, 500) || null;
    await tx.providerWebhook.update({
      where: { id: rowId },
      data: { outcome, note: text, caseRef: caseId, permitRef: permitId },
    });
    return { outcome, caseId };
  };
  if (refused) return keep("refused", refused);
  // Rule 17: a transplanted or contested reference is kept as evidence and applied to nobody.
  if (admitted?.kind === "refused") return keep(admitted.outcome, admitted.note, null, null);
  const applied = await apply(tx, actor, input, found, meaningOfWebhook(found.target, input.report.status));
  return keep(applied.outcome, applied.note, applied.caseId);
}

/**
 * Webhooks kept as `unmatched` whose job some attempt has recorded since (a reviewer attached it, a
 * producer reported it): applied now, as the provider's evidence they are, a batch per worker tick.
 */
export async function matchUnmatchedWebhooks(db: Db, actor: Principal, limit = 20): Promise<number> {
  requireWorker(actor);
  const due = await db.$queryRaw<{ id: bigint }[]>`
    SELECT w.id FROM provider_webhooks w
    WHERE w.outcome = 'unmatched'
      AND EXISTS (SELECT 1 FROM attempts a WHERE a.provider = w.provider AND a.provider_job_id = w.provider_job_id)
    ORDER BY w.id LIMIT ${limit}`;
  let matched = 0;
  for (const { id } of due) {
    const done = await withRefusalsKept(db, async (tx, refused) => {
      const [row] = await tx.$queryRaw<KeptRow[]>`
        SELECT id, provider, webhook_id, provider_job_id, signed_at, reference, detail FROM provider_webhooks
        WHERE id = ${id} AND outcome = 'unmatched' FOR UPDATE SKIP LOCKED`;
      if (!row) return false;
      const provider: ProviderActor = {
        kind: "provider",
        provider: row.provider,
        webhookId: row.webhook_id,
        signedAt: row.signed_at.toISOString(),
      };
      const input: WebhookInput = {
        report: { providerJobId: row.provider_job_id, status: row.detail as JobStatus },
        reference: (row.reference as WebhookReference | null) ?? null,
        signedAt: row.signed_at,
      };
      await settleWebhook(tx, provider, input, row.id, refused, "matched after its job was recorded");
      return true;
    });
    if (done) matched += 1;
  }
  return matched;
}

type KeptRow = {
  id: bigint;
  provider: string;
  webhook_id: string;
  provider_job_id: string;
  signed_at: Date;
  reference: unknown;
  detail: unknown;
};

async function apply(
  tx: Prisma.TransactionClient,
  actor: ProviderActor,
  input: WebhookInput,
  found: Found,
  verdict: WebhookVerdict,
): Promise<Applied> {
  const { report } = input;
  const evidence = {
    source: `${actor.provider} webhook`,
    webhookId: actor.webhookId,
    signedAt: input.signedAt.toISOString(),
    signature: "verified",
    providerJobId: report.providerJobId,
    ...(input.reference ? { reference: "matched" } : {}),
  };
  switch (verdict.kind) {
    case "unmatched":
      return { outcome: "unmatched", note: UNMATCHED_NOTE, caseId: null };
    case "observe":
      return { outcome: "observed", note: verdict.reason, caseId: found.caseId };
    case "converge":
      return converge(tx, actor, found.caseId ?? "", report, verdict, evidence);
    case "report_permit": {
      const [locked] = await tx.$queryRaw<LockedPermit[]>`
        SELECT p.id, (SELECT max(l.token) FROM send_permits l WHERE l.operation_ref = p.operation_ref) AS latest
        FROM send_permits p WHERE p.id = ${found.permitId}::uuid FOR UPDATE`;
      if (!locked) throw new AppError("lost_race", "The permit changed while the webhook was read.");
      const outcome: OutcomeReport =
        verdict.outcome === "accepted"
          ? { kind: "accepted", providerJobId: report.providerJobId }
          : { kind: verdict.outcome, providerJobId: report.providerJobId };
      const result = await applyPermitReport(tx, actor, locked, {
        token: null,
        report: outcome,
        evidence,
        note: sanitise({ ...evidence, outcome: verdict.outcome }) as Prisma.InputJsonValue,
      });
      return { outcome: "permit_reported", note: `permit ${result.status}`, caseId: result.caseId };
    }
    case "attach": {
      const caseId = found.caseId ?? "";
      const text = `the ${actor.provider} webhook for job ${report.providerJobId} carried this operation's signed reference`;
      if (verdict.reopen) await contradictNoJobVerdict(tx, actor, caseId, text, evidence);
      await attachJobToUncertainCase(tx, { actor, caseId, providerJobId: report.providerJobId, text, evidence });
      if (verdict.andThen.kind !== "converge") return { outcome: "attached", note: text, caseId };
      const then = await converge(tx, actor, caseId, report, verdict.andThen, evidence);
      return { outcome: "attached", note: `${text}; ${then.note}`, caseId };
    }
  }
}
