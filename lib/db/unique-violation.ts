type MaybeDbError = {
  code?: string;
  meta?: { code?: string; driverAdapterError?: { cause?: { originalCode?: string } } };
};

/**
 * A unique key was taken between a read and a write, however the statement was sent: Prisma's
 * P2002 (a model call), P2010 with SQLSTATE 23505 (`$queryRaw`), or 23505 itself (`sqlRows`).
 */
export function isUniqueViolation(error: unknown): boolean {
  const { code, meta } = (error ?? {}) as MaybeDbError;
  if (code === "P2002" || code === "23505") return true;
  return code === "P2010" && (meta?.code === "23505" || meta?.driverAdapterError?.cause?.originalCode === "23505");
}
