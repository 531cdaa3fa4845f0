import type { Role } from "@/lib/domain/roles";

/** What each role may do, in the words of the design (section 9). */
export const ROLE_HELP: Record<Role, string> = {
  operator: "view, triage, notes, assign",
  reviewer: "reconcile, approve recovery, request replacements",
  finance: "decide holds, authorise replacements, set spend limits",
  admin: "users, API keys, worker tokens, prices",
  viewer: "read the overview, queue and cases; change nothing",
};
