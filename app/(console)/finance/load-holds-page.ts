import type { UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { listHolds } from "@/lib/services/hold/list-holds";
import type { ListHoldsQuery } from "@/lib/validation/finance";

/** A stale or edited page link falls back to the first page with a note, instead of an error page. */
export async function loadHoldsPage(actor: UserPrincipal, query: ListHoldsQuery, now: Date) {
  try {
    return { ...(await listHolds(db(), actor, query, now)), notice: null };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "invalid_request" || !query.cursor) throw error;
    const first = await listHolds(db(), actor, { ...query, cursor: undefined }, now);
    return { ...first, notice: "That page link was not valid; showing the first page." };
  }
}
