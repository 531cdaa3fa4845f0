import { evidenceVerifyCommand } from "../lib/evidence/verify-command";

/**
 * npm run evidence:verify -- packet.json --key public-key.pem — checks an evidence packet
 * (decision 029) byte for byte: its canonical form, its Ed25519 signature against the deployment's
 * public key (GET /api/v1/evidence/public-key) and its audit timeline's hash chain.
 * Exit codes (EVIDENCE_VERIFY_EXIT): 0 verified against the pinned key; 1 not verified (edited, or
 * signed by another key than --key's); 2 a usage error; 3 the signature is valid but no --key was
 * given, so nothing says whose key made it.
 */
process.exit(await evidenceVerifyCommand(process.argv.slice(2)));
