import { createHash } from "node:crypto";
import { recordAudit } from "@/lib/audit/writer";
import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { lineHashes, type UsageFormat } from "@/lib/domain/usage";
import { parseUsageExport } from "@/lib/domain/usage-export";
import { AppError } from "@/lib/errors";
import { requirePermission, requireUnscoped } from "../access/actor";
import { recordUsageLines, type UsageImportSummary } from "./record-usage-lines";

export type ImportUsageFileInput = { provider: string; format: UsageFormat; fileName: string; content: string };

/**
 * Finance (or an admin) imports a provider's usage or invoice export (decision 073). A billing
 * export covers the whole provider account, every producer's jobs, so a person limited to some
 * producers may not import one (decision 035). Every line is read first: a file with a line that
 * cannot be read changes nothing and names the lines. The lines, the corrections they make and one
 * audit row commit together (DESIGN rule 8); the same file again adds nothing.
 */
export async function importUsageFile(
  db: Db,
  actor: Principal,
  input: ImportUsageFileInput,
): Promise<UsageImportSummary> {
  requireUnscoped(requirePermission(actor, "usage:import"));
  const parsed = parseUsageExport(input.format, input.content);
  if (parsed.problems.length > 0)
    throw new AppError("invalid_request", "Some lines of the file cannot be read; nothing was imported.", {
      issues: parsed.problems
        .slice(0, 20)
        .map((problem) => ({ path: `line ${problem.line}`, message: problem.message })),
    });
  if (parsed.lines.length === 0)
    throw new AppError("invalid_request", "The file has no usage lines.", {
      issues: [{ path: "content", message: "no lines under the header" }],
    });
  const sourceHash = `sha256:${createHash("sha256").update(input.content).digest("hex")}`;
  const hashes = lineHashes(input.provider, parsed.lines);
  const lines = parsed.lines.map((line, i) => ({ ...line, lineHash: hashes[i] ?? "" }));
  return inTransaction(db, async (tx) => {
    const summary = await recordUsageLines(tx, actor, {
      provider: input.provider,
      source: "file",
      format: input.format,
      sourceHash,
      how: `line of ${input.provider}'s usage export ${input.fileName}`,
      lines,
    });
    await recordAudit(tx, {
      actor,
      kind: "usage_imported",
      after: {
        provider: input.provider,
        format: input.format,
        fileName: input.fileName,
        sourceHash,
        read: summary.read,
        added: summary.added,
        alreadyImported: summary.alreadyImported,
        matched: summary.matched,
        waiting: summary.waiting,
        unexplained: summary.unexplained,
      },
    });
    return summary;
  });
}
