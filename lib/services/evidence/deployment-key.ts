import type { Env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { demoPrivateKey, parsePrivateKey, type SigningKey, signingKeyOf } from "@/lib/evidence/signing-key";
import { processShared } from "@/lib/process-shared";

/**
 * The key a configuration signs evidence packets with: EVIDENCE_SIGNING_KEY when set; in demo mode
 * a key derived from the demo's AUTH_SECRET; in production without a configured key none, so an
 * export is refused rather than signed with anything a third party could derive (decision 029).
 */
/** The settings a deployment signs evidence with, handed in by the caller (decision 044). */
export type SigningSettings = Pick<Env, "EVIDENCE_SIGNING_KEY" | "AUTH_SECRET" | "demo">;

export function signingKeyFor(config: SigningSettings): SigningKey | null {
  const configured = config.EVIDENCE_SIGNING_KEY ? parsePrivateKey(config.EVIDENCE_SIGNING_KEY) : null;
  if (configured) return signingKeyOf(configured, false);
  return config.demo ? signingKeyOf(demoPrivateKey(config.AUTH_SECRET), true) : null;
}

export function requireSigningKey(key: SigningKey | null): SigningKey {
  if (key) return key;
  throw new AppError(
    "evidence_signing_unconfigured",
    "Evidence packets cannot be signed: this deployment has no EVIDENCE_SIGNING_KEY.",
  );
}

/** This deployment's key, derived once per process: a process runs with one configuration. */
export function deploymentSigningKey(settings: SigningSettings): SigningKey {
  return requireSigningKey(processShared("evidence-signing-key", () => signingKeyFor(settings)));
}
