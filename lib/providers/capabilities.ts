import { byProvider } from "./registry";
import type { ProviderCapabilities } from "./types";

/** What each provider's adapter can do, known without building one (the console has no adapters). */
export const PROVIDER_CAPABILITIES = byProvider((provider) => provider.capabilities);

/**
 * Whether the original job can be looked for before paying again (rule 14): a list or a lookup by
 * client reference. A provider without an adapter cannot be searched either.
 */
export function canBeSearched(provider: string): boolean {
  const capabilities = (PROVIDER_CAPABILITIES as Partial<Record<string, ProviderCapabilities>>)[provider];
  return capabilities !== undefined && (capabilities.listJobs || capabilities.findByClientReference);
}

export type ProviderCapabilityView = { provider: string; known: boolean; notes: string[] };

/**
 * The capabilities a reviewer needs beside a decision, in words: above all whether the provider can
 * be searched at all, since without a list an empty search proves nothing and "no job exists" must
 * rest on the provider's billing. Pure.
 */
export function providerCapabilityView(provider: string): ProviderCapabilityView {
  const capabilities = (PROVIDER_CAPABILITIES as Partial<Record<string, ProviderCapabilities>>)[provider];
  if (!capabilities)
    return { provider, known: false, notes: ["no adapter: this provider cannot be checked or searched"] };
  const notes: string[] = [];
  if (!capabilities.listJobs && !capabilities.findByClientReference) {
    notes.push("no job list: a 'no job exists' verdict needs billing evidence");
  } else {
    if (capabilities.listJobsRequiresModel) notes.push("job list searched one model at a time");
    if (!capabilities.findByClientReference)
      notes.push("no client reference: jobs are matched by time, model and request");
  }
  if (capabilities.outputRetentionSeconds !== undefined) {
    notes.push(`outputs kept about ${hours(capabilities.outputRetentionSeconds)} after the provider answers`);
  }
  return { provider, known: true, notes };
}

const hours = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${Math.round(seconds / 60)} min`);
