/** What names a hold in finance's lists: the hold, its producer and case, and the operation it is for. */
export const HOLD_OPERATION = {
  select: { operation: { select: { operationId: true, provider: true, model: true } } },
} as const;

export function holdHeading(hold: {
  id: string;
  holdId: string;
  producer: string;
  caseId: string | null;
  attempt: { operation: { operationId: string; provider: string; model: string } };
}) {
  const { operationId, provider, model } = hold.attempt.operation;
  return {
    id: hold.id,
    holdId: hold.holdId,
    producer: hold.producer,
    caseId: hold.caseId,
    operationId,
    provider,
    model,
  };
}
