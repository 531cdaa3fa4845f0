import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import {
  flagEvidence,
  isSuspectedPaidDuplicate,
  orderedPair,
  type PublishedCopy,
} from "@/lib/domain/duplicate-outputs";
import type { Principal } from "@/lib/domain/principal";

export const OUTPUT_DUPLICATE_FLAGGED = "output_duplicate_flagged";

/**
 * Decision 072: serialises the publication of copies with these digests, until the transaction ends.
 * Taken first in the publishing transaction (before any case row), always in sorted order, so two
 * copies of the same bytes publishing at once take turns: the second one's check reads after the
 * first one committed, and exactly one of them records the pair.
 */
export async function lockOutputDigests(tx: Db, digests: readonly string[]): Promise<void> {
  for (const digest of [...new Set(digests)].sort()) {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`output_sha256:${digest}`}, 0))`;
  }
}

type Match = {
  new_id: string;
  new_case: string;
  new_attempt: string;
  other_id: string;
  other_case: string;
  other_attempt: string;
  sha256: string;
};

type CaseFacts = { id: string; producer: string; operationId: string; episode: number };

/**
 * Compares the copies just published (by storage key) with every published copy of the same bytes,
 * retention-deleted ones included, and records each new pair from two different attempts once,
 * with a row on both cases' timelines. Runs in the transaction that publishes, after
 * `lockOutputDigests`. Answers how many pairs it recorded.
 */
export async function flagDuplicateOutputs(tx: Db, actor: Principal, storageKeys: readonly string[]): Promise<number> {
  if (storageKeys.length === 0) return 0;
  const matches = await sqlRows<Match>(
    tx,
    Prisma.sql`
    SELECT n.id::text AS new_id, n.case_id::text AS new_case, n.attempt_ref::text AS new_attempt,
           o.id::text AS other_id, o.case_id::text AS other_case, o.attempt_ref::text AS other_attempt, n.sha256
    FROM assets n
    JOIN assets o ON o.sha256 = n.sha256 AND o.id <> n.id AND o.published_at IS NOT NULL
    WHERE n.storage_key = ANY(${[...storageKeys]}::text[]) AND n.sha256 IS NOT NULL AND n.published_at IS NOT NULL
    ORDER BY o.published_at, o.id`,
  );
  const pairs = matches
    .map((m) => ({
      a: { assetId: m.new_id, caseId: m.new_case, attemptRef: m.new_attempt, sha256: m.sha256 } as PublishedCopy,
      b: { assetId: m.other_id, caseId: m.other_case, attemptRef: m.other_attempt, sha256: m.sha256 } as PublishedCopy,
    }))
    .filter(({ a, b }) => isSuspectedPaidDuplicate(a, b))
    .map(({ a, b }) => orderedPair(a, b));
  if (pairs.length === 0) return 0;
  const inserted = await sqlRows<{ first_case_id: string; second_case_id: string; sha256: string }>(
    tx,
    Prisma.sql`
    INSERT INTO output_duplicates (sha256, first_asset_id, second_asset_id, first_case_id, second_case_id)
    SELECT p."sha256", p."firstAssetId"::uuid, p."secondAssetId"::uuid, p."firstCaseId"::uuid, p."secondCaseId"::uuid
    FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb)
      AS p("sha256" text, "firstAssetId" text, "secondAssetId" text, "firstCaseId" text, "secondCaseId" text)
    ON CONFLICT (first_asset_id, second_asset_id) DO NOTHING
    RETURNING first_case_id::text, second_case_id::text, sha256`,
  );
  if (inserted.length === 0) return 0;
  const ids = [...new Set(inserted.flatMap((p) => [p.first_case_id, p.second_case_id]))];
  const cases: CaseFacts[] = await tx.case.findMany({
    where: { id: { in: ids } },
    select: { id: true, producer: true, operationId: true, episode: true },
  });
  const facts = (id: string) => {
    const found = cases.find((c) => c.id === id);
    if (!found) throw new Error(`case ${id} of a flagged pair is missing`);
    return found;
  };
  for (const pair of inserted) {
    const first = facts(pair.first_case_id);
    const second = facts(pair.second_case_id);
    // One row on each case's timeline, in plain words; a pair within one case gets one row.
    const sides =
      first.id === second.id
        ? [[first, second]]
        : [
            [first, second],
            [second, first],
          ];
    for (const [own, other] of sides as [CaseFacts, CaseFacts][]) {
      await recordAudit(tx, {
        actor,
        kind: OUTPUT_DUPLICATE_FLAGGED,
        caseId: own.id,
        episode: own.episode,
        evidence: flagEvidence(
          { caseId: own.id, producer: own.producer },
          { caseId: other.id, producer: other.producer, operationId: other.operationId },
          pair.sha256,
        ),
      });
    }
  }
  return inserted.length;
}
