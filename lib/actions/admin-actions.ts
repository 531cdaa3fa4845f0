"use server";

import { db } from "@/lib/db/client";
import { inTransaction } from "@/lib/db/transaction";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { endUserSessions } from "@/lib/services/access/end-sessions";
import { revokeAccessToken } from "@/lib/services/access/revoke-access-token";
import { saveConsoleSettings } from "@/lib/services/admin/console-settings";
import { createUser } from "@/lib/services/admin/create-user";
import { deleteProviderPrice } from "@/lib/services/admin/delete-provider-price";
import { resetUserPassword } from "@/lib/services/admin/reset-user-password";
import { saveProviderPace } from "@/lib/services/admin/save-provider-pace";
import { saveProviderPrice } from "@/lib/services/admin/save-provider-price";
import { saveProviderSetting } from "@/lib/services/admin/save-provider-setting";
import { setUserActive } from "@/lib/services/admin/set-user-active";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { rotateEndpointSecret } from "@/lib/services/notification/rotate-endpoint-secret";
import { saveNotificationEndpoint } from "@/lib/services/notification/save-notification-endpoint";
import { setEndpointDisabled } from "@/lib/services/notification/set-endpoint-disabled";
import { resumeProviderBreaker, saveProviderBreaker } from "@/lib/services/provider-breaker/provider-breakers";
import { saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import {
  createMachineTokenSchema,
  createUserSchema,
  endpointIdSchema,
  priceIdSchema,
  resetPasswordSchema,
  saveConsoleSettingsSchema,
  saveEndpointSchema,
  savePriceSchema,
  saveProviderSettingSchema,
  setEndpointDisabledSchema,
  setUserActiveSchema,
  setUserProducersSchema,
  setUserRolesSchema,
  tokenIdSchema,
  userIdSchema,
} from "@/lib/validation/admin";
import { providerBreakerFormSchema, providerParams } from "@/lib/validation/provider-breaker";
import { providerPaceFormSchema } from "@/lib/validation/provider-pace";
import { retentionPolicyFormSchema } from "@/lib/validation/retention";
import { safeAction } from "./safe-action";

// Thin: the schema shapes the input, the service authorises, validates again, writes and audits.
// Secrets and passwords are returned to the browser here exactly once and never stored client-side.

const USERS = ["/admin/users"];
const TOKEN_PAGES = { api_key: "/admin/api-keys", worker: "/admin/worker-tokens" } as const;

const createUserRun = safeAction(createUserSchema, (input, actor) => createUser(db(), actor, input), {
  revalidate: () => USERS,
});
export async function createUserAction(raw: unknown) {
  return createUserRun(raw);
}

const setRolesRun = safeAction(setUserRolesSchema, (input, actor) => setUserRoles(db(), actor, input), {
  revalidate: () => USERS,
});
export async function setUserRolesAction(raw: unknown) {
  return setRolesRun(raw);
}

const setProducersRun = safeAction(setUserProducersSchema, (input, actor) => setUserProducers(db(), actor, input), {
  revalidate: () => USERS,
});
export async function setUserProducersAction(raw: unknown) {
  return setProducersRun(raw);
}

const setActiveRun = safeAction(setUserActiveSchema, (input, actor) => setUserActive(db(), actor, input), {
  revalidate: () => USERS,
});
export async function setUserActiveAction(raw: unknown) {
  return setActiveRun(raw);
}

const resetPasswordRun = safeAction(resetPasswordSchema, (input, actor) => resetUserPassword(db(), actor, input), {
  revalidate: () => USERS,
});
export async function resetUserPasswordAction(raw: unknown) {
  return resetPasswordRun(raw);
}

// "Sign this user out": every session of theirs ends at its next request.
const signOutUserRun = safeAction(userIdSchema, (input, actor) => endUserSessions(db(), actor, input), {
  revalidate: () => USERS,
});
export async function signOutUserAction(raw: unknown) {
  return signOutUserRun(raw);
}

const createTokenRun = safeAction(
  createMachineTokenSchema,
  (input, actor) => inTransaction(db(), (tx) => createAccessToken(tx, actor, input)),
  { revalidate: (input) => [TOKEN_PAGES[input.kind]] },
);
export async function createMachineTokenAction(raw: unknown) {
  return createTokenRun(raw);
}

const revokeTokenRun = safeAction(
  tokenIdSchema,
  (input, actor) => inTransaction(db(), (tx) => revokeAccessToken(tx, actor, input.tokenId)),
  { revalidate: () => Object.values(TOKEN_PAGES) },
);
export async function revokeMachineTokenAction(raw: unknown) {
  return revokeTokenRun(raw);
}

// The URL's address rules depend on the deployment, so the service applies them with the allow-list.
const saveEndpointRun = safeAction(
  saveEndpointSchema,
  (input, actor) => saveNotificationEndpoint(db(), actor, input, { allow: webhookAllowListFromEnv(env()) }),
  { revalidate: () => [TOKEN_PAGES.api_key] },
);
export async function saveEndpointAction(raw: unknown) {
  return saveEndpointRun(raw);
}

const rotateSecretRun = safeAction(endpointIdSchema, (input, actor) => rotateEndpointSecret(db(), actor, input), {
  revalidate: () => [TOKEN_PAGES.api_key],
});
export async function rotateEndpointSecretAction(raw: unknown) {
  return rotateSecretRun(raw);
}

const endpointDisabledRun = safeAction(
  setEndpointDisabledSchema,
  (input, actor) => setEndpointDisabled(db(), actor, input),
  { revalidate: () => [TOKEN_PAGES.api_key] },
);
export async function setEndpointDisabledAction(raw: unknown) {
  return endpointDisabledRun(raw);
}

const savePriceRun = safeAction(savePriceSchema, (input, actor) => saveProviderPrice(db(), actor, input), {
  revalidate: () => ["/admin/prices"],
});
export async function savePriceAction(raw: unknown) {
  return savePriceRun(raw);
}

const deletePriceRun = safeAction(priceIdSchema, (input, actor) => deleteProviderPrice(db(), actor, input), {
  revalidate: () => ["/admin/prices"],
});
export async function deletePriceAction(raw: unknown) {
  return deletePriceRun(raw);
}

const saveProviderSettingRun = safeAction(
  saveProviderSettingSchema,
  (input, actor) =>
    saveProviderSetting(db(), actor, { provider: input.provider, noJobSettlingSeconds: input.settlingMinutes * 60 }),
  { revalidate: () => ["/admin/providers"] },
);
export async function saveProviderSettingAction(raw: unknown) {
  return saveProviderSettingRun(raw);
}

const saveProviderPaceRun = safeAction(providerPaceFormSchema, (input, actor) => saveProviderPace(db(), actor, input), {
  revalidate: () => ["/admin/providers"],
});
export async function saveProviderPaceAction(raw: unknown) {
  return saveProviderPaceRun(raw);
}

const saveProviderBreakerRun = safeAction(
  providerBreakerFormSchema,
  (input, actor) => saveProviderBreaker(db(), actor, input),
  // The breaker's pauses are listed on the pauses page too (decision 070).
  { revalidate: () => ["/admin/providers", "/overview", "/pauses"] },
);
export async function saveProviderBreakerAction(raw: unknown) {
  return saveProviderBreakerRun(raw);
}

const resumeProviderBreakerRun = safeAction(
  providerParams,
  (input, actor) => resumeProviderBreaker(db(), actor, input.provider),
  { revalidate: () => ["/admin/providers", "/overview", "/pauses"] },
);
export async function resumeProviderBreakerAction(raw: unknown) {
  return resumeProviderBreakerRun(raw);
}

const saveConsoleSettingsRun = safeAction(
  saveConsoleSettingsSchema,
  (input, actor) => saveConsoleSettings(db(), actor, input),
  { revalidate: () => USERS },
);
export async function saveConsoleSettingsAction(raw: unknown) {
  return saveConsoleSettingsRun(raw);
}

const saveRetentionPolicyRun = safeAction(
  retentionPolicyFormSchema,
  (input, actor) => saveRetentionPolicy(db(), actor, input),
  { revalidate: () => ["/admin/retention", "/"] },
);
export async function saveRetentionPolicyAction(raw: unknown) {
  return saveRetentionPolicyRun(raw);
}
