import { inProducerScope, type ProducerScope } from "./producer-scope";

/**
 * Decision 072: the same bytes delivered by two paid jobs. A provider never generates the same video
 * twice, so two attempts whose copies share a SHA-256 were most likely both charged for one video.
 */

/** One published copy as the check compares it. */
export type PublishedCopy = {
  assetId: string;
  caseId: string;
  attemptRef: string;
  sha256: string;
};

export type CopyPair = {
  sha256: string;
  firstAssetId: string;
  secondAssetId: string;
  firstCaseId: string;
  secondCaseId: string;
};

/**
 * Whether two copies are a suspected paid duplicate: the same bytes from two different attempts.
 * The same attempt's copies (a job whose outputs are identical) were paid once and are not flagged; two attempts of one case (a replacement that
 * delivered what the original had) are, as are copies of different operations and producers.
 */
export function isSuspectedPaidDuplicate(a: PublishedCopy, b: PublishedCopy): boolean {
  return a.assetId !== b.assetId && a.sha256 === b.sha256 && a.attemptRef !== b.attemptRef;
}

/** The pair in its one stored order (lower asset id first), so either side finds the same row. */
export function orderedPair(a: PublishedCopy, b: PublishedCopy): CopyPair {
  const [first, second] = a.assetId < b.assetId ? [a, b] : [b, a];
  return {
    sha256: first.sha256,
    firstAssetId: first.assetId,
    secondAssetId: second.assetId,
    firstCaseId: first.caseId,
    secondCaseId: second.caseId,
  };
}

/** The other case of a pair, as a reader of one side may see it. */
export type OtherSide =
  | { kind: "same_case" }
  | { kind: "visible"; caseId: string; operationId: string }
  /** Another producer's case outside the reader's producers: only that it exists (decision 072). */
  | { kind: "hidden" };

export function otherSideFor(
  scope: ProducerScope,
  own: { caseId: string },
  other: { caseId: string; producer: string; operationId: string },
): OtherSide {
  if (other.caseId === own.caseId) return { kind: "same_case" };
  if (!inProducerScope(scope, other.producer)) return { kind: "hidden" };
  return { kind: "visible", caseId: other.caseId, operationId: other.operationId };
}

/** The flag's sentence on a case page, with the other side as the reader may see it. */
export function duplicateSentence(other: OtherSide): string {
  switch (other.kind) {
    case "same_case":
      return "Suspected paid duplicate: the same video was delivered for another attempt of this operation";
    case "visible":
      return `Suspected paid duplicate: the same video was delivered for operation ${other.operationId}`;
    case "hidden":
      return "Suspected paid duplicate: the same video was delivered for another producer's operation";
  }
}

/**
 * The timeline's evidence on one case of the pair. Another producer's operation is named only when
 * both cases are the same producer's: a timeline is read (and exported) by people scoped to this
 * case's producer, who must not learn another producer's operations.
 */
export function flagEvidence(
  own: { caseId: string; producer: string },
  other: { caseId: string; producer: string; operationId: string },
  sha256: string,
): { text: string; sha256: string; otherOperationId?: string; sameCase: boolean; sameProducer: boolean } {
  const sameCase = own.caseId === other.caseId;
  const sameProducer = own.producer === other.producer;
  const side: OtherSide = sameCase
    ? { kind: "same_case" }
    : sameProducer
      ? { kind: "visible", caseId: other.caseId, operationId: other.operationId }
      : { kind: "hidden" };
  return {
    text: duplicateSentence(side),
    sha256,
    ...(sameProducer && !sameCase ? { otherOperationId: other.operationId } : {}),
    sameCase,
    sameProducer,
  };
}
