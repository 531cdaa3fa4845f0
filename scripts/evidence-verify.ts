import { readFile } from "node:fs/promises";
import { verifyEvidenceBytes } from "../lib/evidence/packet-signature";

/**
 * npm run evidence:verify -- packet.json [--key public-key.pem] — checks an evidence packet
 * (decision 029) byte for byte: its canonical form, its Ed25519 signature and its audit timeline's
 * hash chain. With --key (the deployment's public key, GET /api/v1/evidence/public-key), a packet
 * signed by any other key is refused; without it, the embedded key is reported for comparison.
 * Exit code 0 when the packet verifies, 1 when it does not, 2 on a usage error.
 */
const args = process.argv.slice(2);
const keyAt = args.indexOf("--key");
const keyFile = keyAt >= 0 ? args[keyAt + 1] : undefined;
const files = args.filter((arg, index) => !arg.startsWith("--") && (keyAt < 0 || index !== keyAt + 1));
if (files.length !== 1 || (keyAt >= 0 && !keyFile)) {
  console.error("usage: npm run evidence:verify -- packet.json [--key public-key.pem]");
  process.exit(2);
}

const bytes = await readFile(files[0] ?? "");
const trusted = keyFile ? [await readFile(keyFile, "utf8")] : undefined;
const result = verifyEvidenceBytes(bytes, trusted ? { trustedPublicKeys: trusted } : {});
if (!result.valid) {
  console.log(`NOT VERIFIED: ${result.reason}`);
  process.exit(1);
}
const { packet } = result;
console.log(`Verified: packet ${packet.packetId}, ${packet.cases.length} case(s), exported ${packet.exportedAt}.`);
console.log(`Signed by ${result.keyId}${result.trusted ? " (the key given with --key)" : ""}.`);
if (!result.trusted) console.log("No --key given: compare that key id with the deployment's published key.");
console.log(`Audit timeline: ${result.timeline.events} event(s), every hash and link recomputed.`);
if (result.demo) console.log("Signed with a demo key: sample data, not evidence.");
