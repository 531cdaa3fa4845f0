import type { Db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import type { Principal } from "@/lib/domain/principal";
import { sanitiseString } from "@/lib/domain/sanitise";
import { requirePermission } from "../access/actor";
import { loadCase, transitionCase } from "./transition-case";

export async function addNote(db: Db, actor: Principal, caseId: string, input: { text: string }) {
  const user = requirePermission(actor, "case:note");
  const text = sanitiseString(input.text, 4000);
  return inTransaction(db, async (tx) => {
    const row = await loadCase(tx, caseId);
    await transitionCase(tx, { row, actor: user, command: { type: "add_note", text }, evidence: { text } });
    return { caseId };
  });
}
