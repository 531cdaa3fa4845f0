import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { DownloadFailure, DownloadResult, OutputRef, ProviderAdapter } from "@/lib/providers/types";
import type { VaultedOutput } from "@/lib/services/vault/vaulted-outputs";
import type { AssetStorage } from "@/lib/storage/types";

const VAULT_SCHEME = "vault:";

/** The vault's copies as the outputs a delivery copies, in output order. */
export function vaultOutputRefs(outputs: [VaultedOutput, ...VaultedOutput[]]): [OutputRef, ...OutputRef[]] {
  const [first, ...rest] = outputs.map(
    (output): OutputRef => ({
      url: `${VAULT_SCHEME}${output.storageKey}`,
      size: output.size,
      ...(output.contentType ? { contentType: output.contentType } : {}),
    }),
  );
  return [first as OutputRef, ...rest];
}

/**
 * Reads the vault's own copies (decision 075) where a delivery would download from the provider: the
 * same contract as an adapter's download (the sink ended after every check, destroyed on failure),
 * each file checked against the SHA-256 recorded when it was copied. It reaches no network.
 */
export function vaultSource(
  storage: AssetStorage,
  outputs: readonly VaultedOutput[],
): Pick<ProviderAdapter, "downloadOutput"> {
  const digests = new Map(outputs.map((output) => [output.storageKey, output.sha256]));
  return {
    async downloadOutput(output, sink, options = {}): Promise<DownloadResult> {
      const fail = (reason: DownloadFailure, detail: string, bytesReceived = 0): DownloadResult => {
        if (!sink.destroyed) sink.destroy();
        return { ok: false, reason, detail, bytesReceived };
      };
      const url = typeof output === "string" ? output : output.url;
      const key = url.startsWith(VAULT_SCHEME) ? url.slice(VAULT_SCHEME.length) : "";
      const expected = digests.get(key);
      if (!expected) return fail("host_not_allowed", "not one of this case's vault copies");
      const file = await storage.open(key);
      // Not `not_available`: that would read as the provider's outputs gone, which this does not show.
      if (!file) return fail("transport_error", "the product's copy is no longer in storage");
      if (options.maxBytes !== undefined && file.size > options.maxBytes) {
        await file.close();
        return fail("too_large", `the product's copy is ${file.size} bytes, over the limit`);
      }
      const hash = createHash("sha256");
      let size = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(file.stream(), count, sink, ...(options.signal ? [{ signal: options.signal }] : []));
      } catch (error) {
        return fail("sink_error", error instanceof Error ? error.message : String(error), size);
      }
      const sha256 = hash.digest("hex");
      if (sha256 !== expected)
        return fail("checksum_mismatch", "the product's copy no longer matches its digest", size);
      return { ok: true, size, sha256, verifiedBy: ["sha256 recorded when the product kept the copy"] };
    },
  };
}
