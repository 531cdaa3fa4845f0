import { PauseBanner } from "@/components/pauses/pause-banner";
import type { UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import type { PauseTarget } from "@/lib/domain/scope-pauses";
import { listScopePauses } from "@/lib/services/scope-pause/list-scope-pauses";

/** The pause banner with the pauses read for this person: one line on every page a pause affects (decision 064). */
export async function PausedWork({ user, target }: { user: UserPrincipal; target?: PauseTarget }) {
  return <PauseBanner pauses={await listScopePauses(db(), user)} target={target} />;
}
