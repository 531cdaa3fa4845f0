import { readFile } from "node:fs/promises";
import { verifyEvidenceBytes } from "./packet-signature";

/**
 * What `npm run evidence:verify` exits with (decision 029). A valid signature alone proves only that
 * nobody edited the file since someone signed it, with whatever key they chose: re-signing a forged
 * packet with a fresh key gives one too. So only a packet checked against the key the recipient
 * pinned (`--key`) is VERIFIED; without `--key` a valid signature is its own code, never 0.
 */
export const EVIDENCE_VERIFY_EXIT = {
  verified: 0,
  notVerified: 1,
  usage: 2,
  keyNotPinned: 3,
} as const;

const USAGE = "usage: npm run evidence:verify -- packet.json --key public-key.pem";

export type VerifyCommandIo = {
  readFile: (path: string) => Promise<Uint8Array>;
  out: (line: string) => void;
  err: (line: string) => void;
};

const nodeIo: VerifyCommandIo = {
  readFile: (path) => readFile(path),
  out: (line) => console.log(line),
  err: (line) => console.error(line),
};

/** Runs the command on its arguments (those after `--`) and answers its exit code. */
export async function evidenceVerifyCommand(args: readonly string[], io: VerifyCommandIo = nodeIo): Promise<number> {
  const keyAt = args.indexOf("--key");
  const keyFile = keyAt >= 0 ? args[keyAt + 1] : undefined;
  const files = args.filter((arg, index) => !arg.startsWith("--") && (keyAt < 0 || index !== keyAt + 1));
  const unknown = args.filter((arg) => arg.startsWith("--") && arg !== "--key");
  if (files.length !== 1 || unknown.length > 0 || (keyAt >= 0 && (!keyFile || keyFile.startsWith("--")))) {
    io.err(USAGE);
    return EVIDENCE_VERIFY_EXIT.usage;
  }
  let bytes: Uint8Array;
  let trusted: string[] | undefined;
  try {
    bytes = await io.readFile(files[0] ?? "");
    trusted = keyFile ? [Buffer.from(await io.readFile(keyFile)).toString("utf8")] : undefined;
  } catch (error) {
    io.err(`cannot read ${error instanceof Error ? error.message : String(error)}`);
    return EVIDENCE_VERIFY_EXIT.usage;
  }
  const result = verifyEvidenceBytes(bytes, trusted ? { trustedPublicKeys: trusted } : {});
  if (!result.valid) {
    io.out(`NOT VERIFIED: ${result.reason}`);
    return EVIDENCE_VERIFY_EXIT.notVerified;
  }
  const { packet } = result;
  const timeline = `Audit timeline: ${result.timeline.events} event(s), every hash and link recomputed.`;
  const demo = result.demo ? ["Signed with a demo key: sample data, not evidence."] : [];
  if (!result.trusted) {
    io.out(
      `SIGNATURE VALID, KEY NOT PINNED: packet ${packet.packetId} is signed by ${result.keyId}, the key it carries.`,
    );
    io.out("Anyone can re-sign an edited packet with a key of their own: this proves nothing about who issued it.");
    io.out("Run again with --key and the deployment's public key (GET /api/v1/evidence/public-key).");
    for (const line of [timeline, ...demo]) io.out(line);
    return EVIDENCE_VERIFY_EXIT.keyNotPinned;
  }
  io.out(`Verified: packet ${packet.packetId}, ${packet.cases.length} case(s), exported ${packet.exportedAt}.`);
  io.out(`Signed by ${result.keyId}, the key given with --key.`);
  for (const line of [timeline, ...demo]) io.out(line);
  return EVIDENCE_VERIFY_EXIT.verified;
}
