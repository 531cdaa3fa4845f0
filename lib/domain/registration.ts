import { fail, ok, type Result } from "./errors";
import { isNonBlankText } from "./evidence";
import { isFingerprint } from "./fingerprint";
import { type CaseState, checkStageFacts, type Stage } from "./stages";

/** What a producing application says when it parks an operation. */
export interface RegistrationFacts {
  operationId: string;
  attemptId: string;
  stage: Stage;
  providerJobId: string | null;
  fingerprint: string;
  provider: string;
  model: string;
  /** The hold the producer reserved for this attempt: money, so a replay must agree on it too. */
  holdId: string;
  amountMicros: bigint;
  currency: string;
}

/**
 * `registered` must be the facts as registered for the case's current episode, not the case's
 * current stage: a case reconciled from uncertain to polling still has to recognise a replay of
 * its original registration.
 */
export interface ExistingRegistration {
  registered: RegistrationFacts;
  state: CaseState;
}

export type RegistrationDecision = { kind: "create" } | { kind: "existing" } | { kind: "new_episode" };

/** Each compared fact under the name the producer sent it by, so a refusal can point at it. */
const COMPARED_FIELDS = {
  attemptId: "attemptId",
  stage: "stage",
  providerJobId: "providerJobId",
  fingerprint: "requestFingerprint",
  provider: "provider",
  model: "model",
  holdId: "hold.holdId",
  amountMicros: "hold.amountMicros",
  currency: "hold.currency",
} as const satisfies Record<Exclude<keyof RegistrationFacts, "operationId">, string>;

type ComparedField = keyof typeof COMPARED_FIELDS;

/** Names only: the registered values belong to whoever registered them. */
function conflict(message: string, differing: ComparedField[]) {
  const fields = differing.map((field) => COMPARED_FIELDS[field]);
  return fail("conflicting_registration", `${message}; differing: ${fields.join(", ")}`, { differing: fields });
}

export function validateRegistration(facts: RegistrationFacts): Result<RegistrationFacts> {
  if (!isNonBlankText(facts.operationId) || !isNonBlankText(facts.attemptId)) {
    return fail("invalid_input", "operationId and attemptId are required");
  }
  if (!isFingerprint(facts.fingerprint)) {
    return fail("invalid_input", "fingerprint must be sha256:<64 lowercase hex>");
  }
  const stageFacts = checkStageFacts(facts.stage, facts.providerJobId);
  return stageFacts.ok ? ok(facts) : stageFacts;
}

export function decideRegistration(
  existing: ExistingRegistration | null,
  incoming: RegistrationFacts,
): Result<RegistrationDecision> {
  const valid = validateRegistration(incoming);
  if (!valid.ok) return valid;
  if (existing === null) return ok({ kind: "create" });

  const differing = (Object.keys(COMPARED_FIELDS) as ComparedField[]).filter(
    (field) => existing.registered[field] !== incoming[field],
  );
  if (differing.length === 0) return ok({ kind: "existing" });

  // An open case disagreeing with a new report is exactly the ambiguity that costs money twice;
  // refusing makes the producer look, instead of silently overwriting what reviewers see.
  if (existing.state !== "resolved") return conflict("the operation is already parked with other facts", differing);
  // An operation is one intended output of one model at one provider, in every episode.
  const moved = differing.filter((field) => field === "provider" || field === "model");
  if (moved.length > 0) return conflict("the operation was registered for another provider or model", moved);
  // An attempt's request never changes, so the same attempt cannot come back asking for
  // something else, and cannot name a different job for the same stage.
  const sameAttempt = existing.registered.attemptId === incoming.attemptId;
  const sameStage = existing.registered.stage === incoming.stage;
  if (sameAttempt && (differing.includes("fingerprint") || sameStage)) {
    return conflict("the same attempt was registered with other facts", differing);
  }
  return ok({ kind: "new_episode" });
}
