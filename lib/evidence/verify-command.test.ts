import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EvidencePacket } from "./packet";
import { evidenceText, signPacket } from "./packet-signature";
import { keyFromSeed, signingKeyOf } from "./signing-key";
import { EVIDENCE_VERIFY_EXIT, evidenceVerifyCommand } from "./verify-command";

const deployment = signingKeyOf(keyFromSeed(Buffer.alloc(32, 7)), false);
const stranger = signingKeyOf(keyFromSeed(Buffer.alloc(32, 9)), false);

function packet(signer = deployment, exportedBy = "reviewer@example.com"): EvidencePacket {
  return {
    packetId: "3f1c2d5e-0000-4000-8000-000000000001",
    exportedAt: "2026-12-04T12:00:00.000Z",
    exportedBy: { kind: "user", id: "user-1", label: exportedBy },
    demo: false,
    scope: { kind: "case", caseId: "0b9d5a3e-6a55-4d5c-9a0c-2a1f4f0e9b11" },
    cases: [],
    signer: { keyId: signer.keyId, demo: signer.demo },
  } as EvidencePacket;
}

const files: Record<string, string> = {
  "issued.json": evidenceText(signPacket(packet(), deployment)),
  // An edited packet re-signed with a key of the editor's own: its signature is valid.
  "forged.json": evidenceText(signPacket(packet(stranger, "someone-else@example.com"), stranger)),
  "deployment.pem": deployment.publicKeyPem,
};
files["edited.json"] = (files["issued.json"] ?? "").replace("reviewer@", "reviewer+@");

async function run(...args: string[]) {
  const out: string[] = [];
  const code = await evidenceVerifyCommand(args, {
    readFile: async (name) => {
      const text = files[name];
      if (text === undefined) throw new Error(`${name}: no such file`);
      return Buffer.from(text, "utf8");
    },
    out: (line) => out.push(line),
    err: (line) => out.push(line),
  });
  return { code, out: out.join("\n") };
}

describe("npm run evidence:verify", () => {
  it("exits 0 only for a packet checked against the pinned key", async () => {
    expect(await run("issued.json", "--key", "deployment.pem")).toMatchObject({
      code: EVIDENCE_VERIFY_EXIT.verified,
      out: expect.stringMatching(/^Verified: .*\nSigned by ed25519:\w+, the key given with --key\./),
    });
  });

  it("without --key, a valid signature exits with its own code, whoever signed it", async () => {
    for (const file of ["issued.json", "forged.json"]) {
      const { code, out } = await run(file);
      expect(code, file).toBe(EVIDENCE_VERIFY_EXIT.keyNotPinned);
      expect(code).not.toBe(0);
      expect(out).toMatch(/^SIGNATURE VALID, KEY NOT PINNED/);
    }
  });

  it("fails a packet signed by another key than --key's, and an edited one", async () => {
    expect(await run("forged.json", "--key", "deployment.pem")).toMatchObject({
      code: EVIDENCE_VERIFY_EXIT.notVerified,
      out: expect.stringMatching(/^NOT VERIFIED: signed by ed25519:\w+, which is not a trusted key/),
    });
    for (const args of [["edited.json"], ["edited.json", "--key", "deployment.pem"]]) {
      expect((await run(...args)).code, args.join(" ")).toBe(EVIDENCE_VERIFY_EXIT.notVerified);
    }
  });

  it("answers a usage error for missing or extra arguments and unreadable files", async () => {
    for (const args of [
      [],
      ["issued.json", "--key"],
      ["a.json", "b.json"],
      ["issued.json", "--keys", "x"],
      ["nope.json"],
    ]) {
      expect((await run(...args)).code, args.join(" ")).toBe(EVIDENCE_VERIFY_EXIT.usage);
    }
  });

  it("is what the npm script's process exits with", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "evidence-verify-"));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const tsx = path.resolve("node_modules/.bin/tsx");
    const script = path.resolve("scripts/evidence-verify.ts");
    // From the repository, as npm runs it (tsx reads the path aliases from its tsconfig).
    const exit = (...names: string[]) => {
      const args = names.map((name) => (name.includes(".") ? path.join(dir, name) : name));
      return spawnSync(tsx, [script, ...args], { encoding: "utf8" }).status;
    };
    expect(exit("forged.json")).toBe(EVIDENCE_VERIFY_EXIT.keyNotPinned);
    expect(exit("issued.json", "--key", "deployment.pem")).toBe(EVIDENCE_VERIFY_EXIT.verified);
    expect(exit("forged.json", "--key", "deployment.pem")).toBe(EVIDENCE_VERIFY_EXIT.notVerified);
  }, 120_000);
});
