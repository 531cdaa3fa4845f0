import type { Db } from "@/lib/db/client";
import { processShared } from "@/lib/process-shared";
import type { ProviderName } from "@/lib/providers/types";

/** Pinned accounts never change while the process runs, so each is read from the database once. */
const pinned = () => processShared("provider-accounts", () => new Map<string, string>());

/**
 * Whether a verified webhook comes from this deployment's own account at the provider. A provider
 * that signs every customer's webhooks with one key set (fal) proves only "some account" by the
 * signature; the account is `configured`. Against the simulator (`mayLearn`: the demo, the tests
 * and the simulation, where nothing else names the account) it is pinned by the first verified
 * webhook about a send of ours: its job is recorded here, or its URL carries a reference this
 * deployment signed (`referenced`). Against the real fal that proof is not enough (a producer using
 * its own fal key with our webhook URL would pin its account), so a live deployment configures it.
 */
export async function isOwnProviderAccount(
  db: Db,
  input: {
    provider: ProviderName;
    accountId: string;
    providerJobId: string;
    referenced: boolean;
    configured?: string | undefined;
    mayLearn: boolean;
  },
): Promise<boolean> {
  if (input.configured) return input.accountId === input.configured;
  if (!input.mayLearn) return false;
  const cache = pinned();
  const known =
    cache.get(input.provider) ??
    (await db.providerAccount.findUnique({ where: { provider: input.provider } }))?.accountId;
  if (known) {
    cache.set(input.provider, known);
    return known === input.accountId;
  }
  const ours =
    input.referenced ||
    (await db.attempt.findFirst({
      where: { provider: input.provider, providerJobId: input.providerJobId },
      select: { id: true },
    })) !== null;
  if (!ours) return false;
  await db.providerAccount.createMany({
    data: [{ provider: input.provider, accountId: input.accountId, learnedFromJob: input.providerJobId }],
    skipDuplicates: true,
  });
  const row = await db.providerAccount.findUnique({ where: { provider: input.provider } });
  if (row) cache.set(input.provider, row.accountId);
  return row?.accountId === input.accountId;
}
