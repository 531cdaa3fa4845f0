import type { Db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/prisma/client";
import { sqlRows } from "@/lib/db/sql-rows";
import { fetchableOutputs } from "@/lib/providers/outputs";
import type { OutputRef } from "@/lib/providers/types";

// The output URLs a completion handed out, kept whole in `output_urls` (decision 043): evidence
// keeps them without their signed query (DESIGN rule 10), so only this copy can be fetched again.
// Nothing here is ever logged, put on the timeline or returned to a person.

/** A kept URL this close to its expiry is not used: a copy started now might not finish in time. */
export const KEPT_URL_MARGIN_SECONDS = 60;

/**
 * How long a URL is kept when neither the provider's answer nor its documented retention says
 * (lib/providers/output-expiry.ts sets the rest): an hour, the shortest any provider documents.
 */
export const DEFAULT_OUTPUT_URL_SECONDS = 60 * 60;

export type KeptOutputs = [OutputRef, ...OutputRef[]];

/**
 * The statement fragment that keeps `outputs` for each row of `wanted` (its `case_id` and
 * `attempt_ref`), replacing what an earlier read kept: a fresher answer carries a fresher signature.
 * Bytes given inline (`data:` URIs) are not kept: the file itself does not belong in this table.
 */
export function keepOutputUrls(wanted: Prisma.Sql, outputs: readonly OutputRef[]): Prisma.Sql {
  const rows = fetchableOutputs(outputs);
  return Prisma.sql`INSERT INTO output_urls (attempt_ref, output_index, case_id, url, content_type, size_bytes, expires_at)
    SELECT w.attempt_ref, o."outputIndex", w.case_id, o.url, o."contentType", o.size,
           coalesce(o."expiresAt", now() + make_interval(secs => ${DEFAULT_OUTPUT_URL_SECONDS}))
    FROM (SELECT DISTINCT case_id, attempt_ref FROM ${wanted} AS wanted_outputs) w
    CROSS JOIN jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS o("outputIndex" int, url text, "contentType" text, size bigint, "expiresAt" timestamptz)
    ON CONFLICT (attempt_ref, output_index) DO UPDATE
      SET case_id = EXCLUDED.case_id, url = EXCLUDED.url, content_type = EXCLUDED.content_type,
          size_bytes = EXCLUDED.size_bytes, expires_at = EXCLUDED.expires_at, recorded_at = now()`;
}

/** The fragment that forgets the kept URLs of each row of `source` (its `attempt_ref`): they were delivered. */
export const forgetOutputUrls = (source: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`DELETE FROM output_urls u USING ${source} s WHERE u.attempt_ref = s.attempt_ref`;

type KeptRow = { outputIndex: number; url: string; contentType: string | null; size: bigint | null; expiresAt: Date };

/**
 * The outputs of the case's current attempt as they were handed out, when every one of them is kept
 * and none expires within the margin; otherwise null, and the provider is asked again.
 */
export async function keptOutputs(db: Db, caseId: string): Promise<KeptOutputs | null> {
  const rows = await sqlRows<KeptRow & { usable: boolean }>(
    db,
    Prisma.sql`
    SELECT u.output_index AS "outputIndex", u.url, u.content_type AS "contentType", u.size_bytes AS size,
           u.expires_at AS "expiresAt", u.expires_at > now() + make_interval(secs => ${KEPT_URL_MARGIN_SECONDS}) AS usable
    FROM cases c JOIN output_urls u ON u.attempt_ref = c.attempt_ref
    WHERE c.id = ${caseId}::uuid
    ORDER BY u.output_index`,
  );
  if (rows.length === 0 || rows.some((row, index) => !row.usable || row.outputIndex !== index)) return null;
  const [first, ...rest] = rows.map(
    (row): OutputRef => ({
      url: row.url,
      expiresAt: row.expiresAt.toISOString(),
      ...(row.contentType ? { contentType: row.contentType } : {}),
      ...(row.size !== null ? { size: Number(row.size) } : {}),
    }),
  );
  return first ? [first, ...rest] : null;
}

/** Forgets the case's kept URLs: the host refused them, so the next try asks the provider for fresh ones. */
export async function forgetKeptOutputs(db: Db, caseId: string): Promise<void> {
  await db.$executeRaw`
    DELETE FROM output_urls u USING cases c WHERE c.id = ${caseId}::uuid AND u.attempt_ref = c.attempt_ref`;
}

/** Retention's part (DESIGN rule 20): URLs past their expiry can fetch nothing and are removed. */
export async function forgetExpiredOutputUrls(db: Db, now: Date): Promise<number> {
  return db.$executeRaw`DELETE FROM output_urls WHERE expires_at <= ${now}`;
}
