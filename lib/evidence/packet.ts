/**
 * The evidence packet (decision 029): one case, or a filter's cases, as facts a recipient outside
 * the deployment can read and check. Money is integer micro-units as decimal strings, each with its
 * currency; instants are ISO 8601 UTC; hashes are lowercase hex. Nothing here is formatted for
 * people: the printable page and the recipient's tools do that.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type Money = { micros: string; currency: string };

export type PacketScope =
  | { kind: "case"; caseId: string }
  | {
      kind: "filter";
      /** The queue filter as it was asked for (the queue's own parameters). */
      filter: { [key: string]: Json };
      /** At most this many cases go into one packet, oldest first. */
      cap: number;
      /** True when more cases matched than the cap let in. */
      truncated: boolean;
    };

/** One audit event with everything its chain hash covers (lib/audit/canonical.ts, audit-chain-v1). */
export type TimelineEvent = {
  id: string;
  seq: number;
  prevHash: string;
  hash: string;
  episode: number | null;
  actorKind: string;
  actorId: string | null;
  actorLabel: string;
  actorLabelSha256: string;
  kind: string;
  before: Json;
  after: Json;
  evidence: Json;
  /** SHA-256 of the JSON as PostgreSQL renders it, as the chain records it (null: no value). */
  beforeSha256: string | null;
  afterSha256: string | null;
  evidenceSha256: string | null;
  at: string;
  atMicros: string;
};

export type CaseEvidence = {
  case: {
    id: string;
    producer: string;
    operationId: string;
    attemptId: string;
    provider: string;
    model: string;
    stage: string;
    state: string;
    episode: number;
    version: number;
    outcome: string | null;
    providerJobId: string | null;
    requestFingerprint: string;
    requestSummary: Json;
    lastEvidence: Json;
    held: Money;
    openedAt: string;
    resolvedAt: string | null;
    submittedAt: string | null;
    escalation: { at: string; reason: string | null } | null;
    outputsUnavailableAt: string | null;
    /** When the retention policy replaced the case's customer text with markers (decision 033); null: never. */
    redactedAt: string | null;
  };
  attempts: {
    attemptId: string;
    kind: string;
    replacesAttemptId: string | null;
    providerJobId: string | null;
    submittedAt: string | null;
    createdAt: string;
  }[];
  decisions: {
    id: string;
    episode: number;
    kind: string;
    actionKind: string | null;
    reviewerId: string;
    reviewer: string;
    evidence: string;
    at: string;
  }[];
  recoveryActions: {
    id: string;
    decisionId: string;
    episode: number;
    kind: string;
    status: string;
    outcome: string | null;
    fencingToken: string;
    claimCount: number;
    failures: Json;
    readyAt: string;
    createdAt: string;
    finishedAt: string | null;
  }[];
  observations: {
    id: string;
    attemptId: string | null;
    actionId: string | null;
    fencingToken: string | null;
    kind: string;
    providerStatus: string | null;
    outputs: Json;
    detail: Json;
    at: string;
  }[];
  holds: {
    id: string;
    holdId: string;
    producer: string;
    attemptId: string | null;
    status: string;
    amount: Money;
    settled: Money;
    released: Money;
    decidedById: string | null;
    decisionNote: string | null;
    createdAt: string;
    resolvedAt: string | null;
  }[];
  ledger: {
    id: string;
    holdId: string;
    kind: string;
    amount: Money;
    flagged: boolean;
    note: string | null;
    actor: string;
    at: string;
  }[];
  replacementRequests: {
    id: string;
    status: string;
    amount: Money;
    requestedById: string;
    decidedById: string | null;
    evidence: string;
    createdAt: string;
    decidedAt: string | null;
    closedReason: string | null;
  }[];
  assets: {
    outputIndex: number;
    storageKey: string;
    sha256: string | null;
    sizeBytes: string | null;
    contentType: string | null;
    fencingToken: string;
    publishedAt: string | null;
    /** When the stored file was deleted (by retention); the row, its SHA-256 and size stay. */
    deletedAt: string | null;
  }[];
  timeline: {
    /** The case's whole audit chain from seq 1, unless `complete` is false (capped; the newest are kept). */
    events: TimelineEvent[];
    complete: boolean;
    /** The chain's head when the packet was read: its last event's seq and hash. */
    head: { seq: number; hash: string } | null;
  };
};

export type EvidencePacket = {
  packetId: string;
  exportedAt: string;
  exportedBy: { kind: string; id: string | null; label: string };
  /** True when the deployment runs in demo mode: sample data, and a derived signing key. */
  demo: boolean;
  scope: PacketScope;
  cases: CaseEvidence[];
  signer: { keyId: string; demo: boolean };
};
