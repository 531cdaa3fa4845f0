-- The provider account this deployment's webhooks come from. fal signs every customer's webhooks
-- with the same published keys, so a signature alone proves "some fal account": the account's ID is
-- configured (FAL_USER_ID) or learned from the first verified webhook about a job this deployment
-- recorded, and pinned here. The app role may read and insert it, never change it
-- (lib/db/roles.ts): a pinned account is changed by the owner, deliberately
-- (docs/decisions/023-provider-webhooks-as-evidence.md).
CREATE TABLE "provider_accounts" (
  "provider" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "learned_from_job" TEXT NOT NULL,
  "pinned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "provider_accounts_pkey" PRIMARY KEY ("provider")
);
