import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { demoPrivateKey, parsePrivateKey, type SigningKey, signingKeyOf } from "@/lib/evidence/signing-key";
import { processShared } from "@/lib/process-shared";

/**
 * The key this deployment signs evidence packets with: EVIDENCE_SIGNING_KEY when configured; in
 * demo mode a key derived from the demo's AUTH_SECRET; in production without a configured key none,
 * so an export is refused rather than signed with anything a third party could derive.
 */
export function deploymentSigningKey(): SigningKey {
  return (
    processShared("evidence-signing-key", () => {
      const config = env();
      const configured = config.EVIDENCE_SIGNING_KEY ? parsePrivateKey(config.EVIDENCE_SIGNING_KEY) : null;
      if (configured) return signingKeyOf(configured, false);
      if (config.demo) return signingKeyOf(demoPrivateKey(config.AUTH_SECRET), true);
      return null;
    }) ?? unconfigured()
  );
}

function unconfigured(): never {
  throw new AppError(
    "evidence_signing_unconfigured",
    "Evidence packets cannot be signed: this deployment has no EVIDENCE_SIGNING_KEY.",
  );
}
