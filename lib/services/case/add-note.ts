import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { storedText } from "@/lib/domain/stored-text";
import type { Env } from "@/lib/env";
import { requirePermission, type UserActor } from "../access/actor";
import { type CaseRow, type ChangeVia, loadCase, transitionCase } from "./transition-case";

/** A person's note; `settings` says whether full prompts are kept (absent: only their digest). */
export async function addNote(
  db: Db,
  actor: Principal,
  caseId: string,
  input: { text: string },
  settings?: Pick<Env, "STORE_PROMPTS">,
) {
  const user = requirePermission(actor, "case:note");
  return inTransaction(db, async (tx) => {
    const storePrompts = settings?.STORE_PROMPTS === "1";
    await addNoteLoaded(tx, user, await loadCase(tx, caseId, user), { ...input, storePrompts });
    return { caseId };
  });
}

/** A note on a case already read in the caller's transaction. */
export async function addNoteLoaded(
  tx: Db,
  user: UserActor,
  row: CaseRow,
  input: { text: string; storePrompts?: boolean },
  via?: ChangeVia,
): Promise<void> {
  const text = storedText(input.text, { storePrompts: input.storePrompts === true, limits: { maxStringLength: 4000 } });
  await transitionCase(tx, { row, actor: user, command: { type: "add_note", text }, evidence: { text, ...via } });
}
