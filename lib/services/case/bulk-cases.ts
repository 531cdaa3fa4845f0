import { randomBytes } from "node:crypto";
import { hashToken } from "@/lib/auth/token-secret";
import type { Prisma as Client, Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { inTransaction } from "@/lib/db/transaction";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { BULK_VERB_PERMISSION, type BulkAction, bulkCommand } from "@/lib/domain/bulk-verbs";
import { type DomainError, isDomainError } from "@/lib/domain/errors";
import { requestFingerprint } from "@/lib/domain/fingerprint";
import { type AttemptFinding, futileRepeat } from "@/lib/domain/futile-repeat";
import type { Principal } from "@/lib/domain/principal";
import { inProducerScope, scopeOf } from "@/lib/domain/producer-scope";
import type { CaseState, Stage } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { BulkDryRunInput, BulkExecuteInput, BulkTarget } from "@/lib/validation/bulk";
import { requirePermission, type UserActor } from "../access/actor";
import { checkAssignee } from "./assign-case";
import { approvePreviewed } from "./bulk-approve-cases";
import { applyBulkAction } from "./bulk-verb-apply";
import { scopeConditions } from "./case-filter";
import { COUNT_CAP } from "./count-cases";
import { lastAttemptFindings } from "./last-attempt-findings";
import { viewConditions } from "./list-cases";
import { type OwnershipRule, ownershipRule } from "./ownership-rule";
import { type ChangeVia, loadCase } from "./transition-case";
import { snapshotOf } from "./writer/change";

/** Most cases one dry run previews when the caller names no limit (the console and API pass `BULK_APPROVE_LIMIT`). */
const DEFAULT_BULK_LIMIT = 500;

/** How long a dry run's token may be executed: long enough to read it, short enough to still be true. */
export const BULK_PREVIEW_TTL_SECONDS = 15 * 60;

/** A case the bulk action leaves alone, and why (the decision's own refusal, or a change since the dry run). */
export type BulkSkipped = {
  caseId: string;
  operationId: string;
  code: string;
  message: string;
  at: "dry_run" | "execute";
};

type Row = {
  id: string;
  operationId: string;
  stage: Stage;
  state: CaseState;
  providerJobId: string | null;
  version: number;
  outputsUnavailableAt: Date | null;
  assigneeId: string | null;
  heldMicros: bigint;
  currency: string;
};

/** The picked rows, or the queue's own view conditions for the filter (so the dry run and the queue agree). */
async function targetConditions(db: Db, actor: Principal, target: BulkTarget, now: Date): Promise<Prisma.Sql> {
  if (target.kind === "ids")
    return Prisma.join([Prisma.sql`id = ANY(${target.caseIds}::uuid[])`, ...scopeConditions(scopeOf(actor))], " AND ");
  return Prisma.join(await viewConditions(db, actor, { ...target.filter, sort: "age", limit: 1 }, now), " AND ");
}

/** What the execution must repeat exactly: the verb with its parameters, and the target. */
const requestDigest = (input: { action: BulkAction; target: BulkTarget }) =>
  requestFingerprint({ action: input.action, target: input.target });

/**
 * Why the decision leaves a case alone, or null when it would act on it. An approval that would
 * only repeat what the provider has just answered for good (`futileRepeat`, decision 061) is left
 * alone too: a person decides such a case on its own, with "try again anyway" if they must.
 */
async function refusal(
  row: Row,
  action: BulkAction,
  owned: OwnershipRule,
  finding: AttemptFinding | null,
): Promise<{ code: string; message: string } | null> {
  const command = bulkCommand(action, row.stage);
  if (await owned(command.type, row.assigneeId)) {
    return {
      code: "assigned_to_someone_else",
      message: "assigned to someone else: while assignment means ownership, only they or an admin decide it",
    };
  }
  const decision = decide(snapshotOf(row), command);
  if (!decision.ok) return { code: decision.error.code, message: decision.error.message };
  const futile = action.verb === "approve" ? futileRepeat(row.stage, finding) : null;
  if (futile) return { code: futile.code, message: futile.message };
  if (action.verb === "assign" && row.assigneeId === action.assigneeId) {
    return { code: "already_assigned", message: action.assigneeId ? "already assigned to them" : "not assigned" };
  }
  return null;
}

/**
 * The dry run: every case the target selects (oldest first, up to `limit`) is asked the verb's
 * decision on its own; the answer lists the cases it would act on with their money per currency,
 * and those it would skip with the reason. Nothing about a case changes. The preview is kept, with
 * each case's version, behind a token only its hash of is stored: the execution presents it.
 */
export async function dryRunBulk(db: Db, actor: Principal, input: BulkDryRunInput, limit = DEFAULT_BULK_LIMIT) {
  const user = requirePermission(actor, BULK_VERB_PERMISSION[input.action.verb]);
  if (input.action.verb === "assign") await checkAssignee(db, input.action.assigneeId);
  const now = new Date();
  const where = await targetConditions(db, actor, input.target, now);
  // Counted as the queue counts, up to its cap: past that, "more than 10,000" is all anyone needs.
  const [counted] = await db.$queryRaw<{ n: bigint }[]>(
    Prisma.sql`SELECT count(*) AS n FROM (SELECT 1 FROM cases WHERE ${where} LIMIT ${COUNT_CAP + 1}) s`,
  );
  const rows = await db.$queryRaw<Row[]>(
    Prisma.sql`SELECT id::text, operation_id AS "operationId", stage, state, provider_job_id AS "providerJobId",
                      version, outputs_unavailable_at AS "outputsUnavailableAt", assignee_id::text AS "assigneeId",
                      held_micros AS "heldMicros", currency
               FROM cases WHERE ${where} ORDER BY opened_at, id LIMIT ${limit}`,
  );
  const owned = ownershipRule(db, user);
  const findings =
    input.action.verb === "approve"
      ? await lastAttemptFindings(
          db,
          rows.map((row) => row.id),
        )
      : new Map();
  const cases: Row[] = [];
  const skipped: BulkSkipped[] = [];
  for (const row of rows) {
    const why = await refusal(row, input.action, owned, findings.get(row.id) ?? null);
    if (why) skipped.push({ caseId: row.id, operationId: row.operationId, ...why, at: "dry_run" });
    else cases.push(row);
  }
  const held = new Map<string, bigint>();
  for (const row of cases) held.set(row.currency, (held.get(row.currency) ?? 0n) + BigInt(row.heldMicros));

  const token = `vrb_${randomBytes(32).toString("base64url")}`;
  const expiresAt = new Date(now.getTime() + BULK_PREVIEW_TTL_SECONDS * 1000);
  await db.bulkPreview.create({
    data: {
      tokenHash: hashToken(token),
      userId: user.userId,
      verb: input.action.verb,
      requestDigest: requestDigest(input),
      cases: cases.map((row) => ({ id: row.id, version: row.version })),
      skipped,
      expiresAt,
    },
  });
  // Old previews are of no further use (each change they led to has its own audit row).
  await db.bulkPreview.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 24 * 3600 * 1000) } } });
  const counting = Number(counted?.n ?? 0);
  const matching = Math.min(counting, COUNT_CAP);
  return {
    token,
    expiresAt,
    verb: input.action.verb,
    matching,
    /** More than `matching` (the count's cap) matched. */
    matchingMore: counting > COUNT_CAP,
    limit,
    beyondLimit: Math.max(0, matching - rows.length),
    willAct: cases.length,
    heldByCurrency: [...held].map(([currency, micros]) => ({ currency, micros: Number(micros) })),
    cases: cases.map((row) => ({
      caseId: row.id,
      operationId: row.operationId,
      stage: row.stage,
      state: row.state,
      heldMicros: Number(row.heldMicros),
      currency: row.currency,
    })),
    skipped,
  };
}

export type BulkDryRun = Awaited<ReturnType<typeof dryRunBulk>>;

/** The token's preview, if it is this user's, for this very request, unused and in time; taken for good. */
export async function takePreview(
  db: Db,
  userId: string,
  input: Pick<BulkExecuteInput, "token"> & { action: unknown; target: unknown },
  now: Date,
) {
  const preview = await db.bulkPreview.findUnique({ where: { tokenHash: hashToken(input.token) } });
  if (!preview || preview.userId !== userId) {
    throw new AppError("bulk_preview_invalid", "This token is not from one of your dry runs; run the dry run first.");
  }
  if (preview.requestDigest !== requestFingerprint({ action: input.action, target: input.target })) {
    throw new AppError(
      "bulk_preview_mismatch",
      "The action or the cases differ from the dry run's; run the dry run again for this request.",
    );
  }
  if (preview.expiresAt <= now) throw new AppError("bulk_preview_expired", "This dry run has expired; run it again.");
  const { count } = await db.bulkPreview.updateMany({ where: { id: preview.id, usedAt: null }, data: { usedAt: now } });
  if (count === 0) throw new AppError("bulk_preview_expired", "This dry run has been executed already; run it again.");
  return {
    id: preview.id,
    cases: preview.cases as { id: string; version: number }[],
    skipped: preview.skipped as BulkSkipped[],
  };
}

/**
 * The execution of a dry run: acts on exactly the cases it previewed, once. Each case is read again
 * in a transaction of its own, within the scope `actor` has now (not the dry run's: decision 054),
 * and acted on only at the version the dry run read (the case writer's
 * compare-and-set holds it to that version), through the verb's single-case service, so it gets its
 * own decision and audit row; a case that changed meanwhile is skipped, never re-decided unseen.
 * Cases that came to match the filter after the dry run are not touched.
 */
export async function executeBulk(
  db: Db,
  actor: Principal,
  input: BulkExecuteInput,
  settings?: Pick<Env, "STORE_PROMPTS">,
) {
  // A bulk note keeps prompts as a single note does (DESIGN rule 20).
  const storePrompts = settings?.STORE_PROMPTS === "1";
  const user = requirePermission(actor, BULK_VERB_PERMISSION[input.action.verb]);
  if (input.action.verb === "assign") await checkAssignee(db, input.action.assigneeId);
  const preview = await takePreview(db, user.userId, input, new Date());
  const via = { bulkPreviewId: preview.id };
  // Approvals go 500 to a statement; whatever that leaves is asked one case at a time below.
  const batched =
    input.action.verb === "approve"
      ? await approvePreviewed(db, user, input.action.evidence, preview.cases, via)
      : new Set<string>();
  const rest = preview.cases.filter((c) => !batched.has(c.id));
  const outcomes = await eachAtMost(CONCURRENT_CASES, rest, (seen) =>
    executeOne(db, user, input.action, seen, via, storePrompts),
  );
  const applied = [...batched, ...rest.filter((_, at) => outcomes[at] === null).map((seen) => seen.id)];
  const skipped: BulkSkipped[] = [
    ...(await previewSkipsVisible(db, user, preview.skipped)),
    ...outcomes.flatMap((outcome, at) => {
      const seen = rest[at];
      return outcome && seen ? [{ caseId: seen.id, ...outcome, at: "execute" as const }] : [];
    }),
  ];
  return { verb: input.action.verb, applied: applied.length, appliedCaseIds: applied, skipped };
}

/**
 * Cases acted on at once, each in its own transaction: distinct cases share no row and no audit
 * chain, and a few at a time leave the pool's other connections to the console.
 */
const CONCURRENT_CASES = 4;

export type Refusal = { code: string; message: string; operationId: string };

/**
 * One previewed case: null when it was acted on, else why it was left alone. `alsoInside` runs in
 * the case's own transaction after the change (a bulk job marks its item there, decision 065).
 */
export async function executeOne(
  db: Db,
  user: UserActor,
  action: BulkAction,
  seen: { id: string; version: number },
  via: ChangeVia,
  storePrompts: boolean,
  alsoInside?: (tx: Client.TransactionClient) => Promise<void>,
): Promise<Refusal | null> {
  try {
    return await inTransaction(db, async (tx) => {
      // Scope first, from the principal as loaded for this request (decision 054): a case outside
      // it is `not_found` whatever else changed, and its operation ID is not told.
      const row = await loadCase(tx, seen.id, user);
      if (row.version !== seen.version) return { ...CHANGED, operationId: row.operationId };
      await applyBulkAction(tx, user, row, action, via, storePrompts);
      await alsoInside?.(tx);
      return null;
    });
  } catch (error) {
    // A refusal is a skip with its reason; a concurrent decision (the unique index, or the
    // compare-and-set) is a change since the preview; anything else is a failure, never a quiet skip.
    const raced = isUniqueViolation(error) || (error instanceof AppError && error.code === "lost_race");
    if (!raced && !(error instanceof AppError) && !isDomainError(error)) throw error;
    const operationId = await visibleOperationId(db, user, seen.id);
    if (raced) return { ...CHANGED, operationId };
    const refused = error as AppError | DomainError;
    return { code: refused.code, message: refused.message, operationId };
  }
}

/** The case's operation ID if `user` may see the case now, else "" (as for a case that does not exist). */
async function visibleOperationId(db: Db, user: UserActor, caseId: string): Promise<string> {
  const row = await db.case.findUnique({ where: { id: caseId }, select: { operationId: true, producer: true } });
  return row && inProducerScope(scopeOf(user), row.producer) ? row.operationId : "";
}

/**
 * The dry run's own skips, as far as `user` may still see their cases: one now outside the scope
 * (narrowed since the dry run, decision 054) is reported as `not_found`, its operation ID untold.
 */
async function previewSkipsVisible(db: Db, user: UserActor, skipped: BulkSkipped[]): Promise<BulkSkipped[]> {
  const scope = scopeOf(user);
  if (scope === null || skipped.length === 0) return skipped;
  const visible = await db.case.findMany({
    where: { id: { in: skipped.map((skip) => skip.caseId) }, producer: { in: [...scope] } },
    select: { id: true },
  });
  const seen = new Set(visible.map((row) => row.id));
  return skipped.map((skip) =>
    seen.has(skip.caseId)
      ? skip
      : { caseId: skip.caseId, operationId: "", code: "not_found", message: "No such case.", at: "execute" },
  );
}

/** `work` over `items`, at most `limit` at a time; the results in the items' order. */
async function eachAtMost<T, R>(limit: number, items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  // A failure stops every lane from starting another item, so nothing runs on after the answer.
  const lane = async () => {
    while (!failed && next < items.length) {
      const at = next++;
      try {
        results[at] = await work(items[at] as T);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

export const CHANGED = {
  code: "changed_since_preview",
  message: "The case changed after the dry run; it was left as it is.",
} as const;

export type BulkExecution = Awaited<ReturnType<typeof executeBulk>>;
