import type { Readable } from "node:stream";
import type { Db } from "@/lib/db/client";
import { type ByteRange, resolveByteRange } from "@/lib/domain/byte-range";
import type { Principal } from "@/lib/domain/principal";
import { AppError } from "@/lib/errors";
import type { AssetStorage } from "@/lib/storage/types";
import { requireCaseInScope, requirePermission } from "../access/actor";

export type OpenedOutput = {
  /** The bytes to send (the range asked for, or all); null when the range asked for is past the end. */
  stream: Readable | null;
  /** The whole file's size, whatever part of it is sent. */
  sizeBytes: number;
  range: ByteRange;
  contentType: string;
  filename: string;
  download: boolean;
};

/**
 * A case's delivered output, for a person allowed to see the producer's videos (decision 067): only
 * a published copy, verified when it was stored; one retention deleted, or one missing from storage,
 * is not found, with the reason. One `Range: bytes=` range is served as asked (decision 071), read
 * from the store as it is sent.
 */
export async function openOutput(
  db: Db,
  storage: AssetStorage,
  actor: Principal,
  input: { caseId: string; assetId: string; download: boolean; range?: string | null; ifRange?: string | null },
): Promise<OpenedOutput> {
  requirePermission(actor, "case:view_outputs");
  const [asset, owner] = await Promise.all([
    db.asset.findFirst({
      where: { id: input.assetId, caseId: input.caseId, publishedAt: { not: null } },
      select: { storageKey: true, outputIndex: true, contentType: true, deletedAt: true, attemptRef: true },
    }),
    db.case.findUnique({
      where: { id: input.caseId },
      select: { producer: true, attemptRef: true, operation: { select: { operationId: true } } },
    }),
  ]);
  if (!asset || !owner) throw new AppError("not_found", "No such delivered output.");
  requireCaseInScope(actor, owner.producer, "delivered output");
  if (asset.deletedAt) throw new AppError("not_found", "This output was deleted under the retention policy.");
  const opened = await storage.open(asset.storageKey);
  if (!opened) throw new AppError("not_found", "This output is no longer in storage.");
  const contentType = asset.contentType ?? "application/octet-stream";
  // An earlier attempt's output is another file than the current attempt's output of the same
  // number (decision 071): its name says which attempt, so two downloads never share a name.
  const earlier =
    asset.attemptRef === owner.attemptRef
      ? null
      : await db.attempt.findUnique({ where: { id: asset.attemptRef }, select: { attemptId: true } });
  const { operationId } = owner.operation;
  const stem = !earlier
    ? operationId
    : earlier.attemptId.startsWith(operationId)
      ? earlier.attemptId
      : `${operationId}-${earlier.attemptId}`;
  const range = resolveByteRange(input.range ?? null, opened.size, input.ifRange ?? null);
  let stream: Readable | null = null;
  if (range.kind === "unsatisfiable") await opened.close();
  else stream = opened.stream(range.kind === "part" ? { start: range.start, end: range.end } : undefined);
  return {
    stream,
    sizeBytes: opened.size,
    range,
    contentType,
    // A header value: the producer's IDs kept to plain characters.
    filename: `${stem.replace(/[^A-Za-z0-9._-]/g, "_")}-output-${asset.outputIndex}${extensionOf(contentType)}`,
    download: input.download,
  };
}

function extensionOf(contentType: string): string {
  const known: Record<string, string> = { "video/mp4": ".mp4", "video/webm": ".webm", "image/png": ".png" };
  return known[contentType] ?? "";
}
