"use server";

import { db } from "@/lib/db/client";
import { acknowledgeLateCharge } from "@/lib/services/hold/acknowledge-late-charge";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { authorizeReplacement, declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { setSpendLimit } from "@/lib/services/spend-limit/set-spend-limit";
import {
  decideReplacementSchema,
  lateChargeFormSchema,
  releaseHoldSchema,
  settleHoldSchema,
} from "@/lib/validation/finance";
import { spendLimitFormSchema } from "@/lib/validation/spend-limits";
import { processWorkerContext } from "@/lib/worker/process-context";
import { safeAction } from "./safe-action";

// The services authorise (hold:decide, replacement:authorize, four-eyes) and own the transaction;
// these only carry the console's forms to them. They do not revalidate: the Finance page re-reads
// itself with router.refresh() after a decision and after a refusal has been read, which a
// revalidation here could not wait for (components/finance/use-decision.ts).

export const settleHoldAction = safeAction(settleHoldSchema, ({ holdRef, chargeMicros, note, evidence }, actor) =>
  resolveHold(db(), actor, holdRef, { kind: "settle", chargeMicros, note, evidence }),
);

export const releaseHoldAction = safeAction(releaseHoldSchema, ({ holdRef, note, evidence }, actor) =>
  resolveHold(db(), actor, holdRef, { kind: "release", note, evidence }),
);

// The same form as a release: its note is the reason the hold is written off (DESIGN rule 18).
export const writeOffHoldAction = safeAction(releaseHoldSchema, ({ holdRef, note, evidence }, actor) =>
  resolveHold(db(), actor, holdRef, { kind: "write_off", note, evidence }),
);

export const acknowledgeLateChargeAction = safeAction(lateChargeFormSchema, ({ holdRef, note }, actor) =>
  acknowledgeLateCharge(db(), actor, holdRef, { note }),
);

export const authorizeReplacementAction = safeAction(decideReplacementSchema, ({ requestId, evidence }, actor) =>
  authorizeReplacement(db(), actor, requestId, { evidence }, { adapters: () => processWorkerContext().adapters }),
);

export const declineReplacementAction = safeAction(decideReplacementSchema, ({ requestId, evidence }, actor) =>
  declineReplacement(db(), actor, requestId, { evidence }),
);

// A limit is not a decision on a row that leaves a list: revalidating the page is enough here.
export const setSpendLimitAction = safeAction(
  spendLimitFormSchema,
  (input, actor) => setSpendLimit(db(), actor, input),
  { revalidate: () => ["/finance"] },
);
