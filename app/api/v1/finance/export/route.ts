import { apiRoute } from "@/lib/api/api-route";
import { db } from "@/lib/db/client";
import { exportFinanceCsv } from "@/lib/services/export-ledger";
import { exportQuerySchema } from "@/lib/validation/finance";

export const dynamic = "force-dynamic";

type CsvFile = Awaited<ReturnType<typeof exportFinanceCsv>>;

/**
 * GET /api/v1/finance/export?from=YYYY-MM-DD&to=YYYY-MM-DD&kind=holds|ledger
 * The JSON wrapper authenticates, rate-limits, validates the query and shapes every error; the
 * file it produced is then answered as a CSV attachment instead of its JSON acknowledgement.
 */
export async function GET(req: Request, context: { params: Promise<unknown> }): Promise<Response> {
  let file: CsvFile | undefined;
  const answer = await apiRoute({
    audience: "user",
    query: exportQuerySchema,
    handler: async ({ actor, query }) => {
      file = await exportFinanceCsv(db(), actor, query);
      return { filename: file.filename, rows: file.rowCount };
    },
  })(req, context);
  if (!file || !answer.ok) return answer;
  return new Response(file.body, {
    status: 200,
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${file.filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Row-Count": String(file.rowCount),
    },
  });
}
