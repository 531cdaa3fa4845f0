import { describe, expect, it } from "vitest";
import { eventHash, GENESIS_HEX, textDigest } from "@/lib/audit/canonical";
import type { CaseEvidence, EvidencePacket, TimelineEvent } from "./packet";
import { evidenceText, signPacket, verifyEvidenceBytes, verifyEvidenceText } from "./packet-signature";
import { demoPrivateKey, isPublishedDemoKey, keyFromSeed, publicKeyPemOf, signingKeyOf } from "./signing-key";
import { chained } from "./timeline-chain";

const CASE_ID = "0b9d5a3e-6a55-4d5c-9a0c-2a1f4f0e9b11";
const key = signingKeyOf(keyFromSeed(Buffer.alloc(32, 7)), false);
const otherKey = signingKeyOf(keyFromSeed(Buffer.alloc(32, 9)), false);

/** A chain of events whose hashes are computed the way the database's trigger computes them. */
function chain(kinds: string[]): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  let prev = GENESIS_HEX;
  kinds.forEach((kind, index) => {
    const at = new Date(Date.UTC(2026, 11, 4, 10, index));
    const event: TimelineEvent = {
      id: String(100 + index),
      seq: index + 1,
      prevHash: prev,
      hash: "",
      episode: index < 2 ? 1 : 2,
      actorKind: "user",
      actorId: "user-1",
      actorLabel: "reviewer@example.com",
      actorLabelSha256: textDigest("reviewer@example.com") ?? "",
      kind,
      before: null,
      after: { step: index },
      evidence: { evidence: "seen — ünïcode ✓" },
      beforeSha256: null,
      afterSha256: textDigest(`{"step": ${index}}`),
      evidenceSha256: textDigest('{"evidence": "seen"}'),
      at: at.toISOString(),
      atMicros: (BigInt(at.getTime()) * 1000n).toString(),
    };
    event.hash = eventHash(chained(CASE_ID, event));
    prev = event.hash;
    events.push(event);
  });
  return events;
}

function packet(events = chain(["parked", "approved", "reopened"]), signer = key): EvidencePacket {
  const last = events.at(-1);
  const item = {
    case: { id: CASE_ID, held: { micros: "1500000", currency: "USD" } },
    holds: [{ holdId: "hold-1", amount: { micros: "1500000", currency: "USD" } }],
    timeline: { events, complete: true, head: last ? { seq: last.seq, hash: last.hash } : null },
  } as unknown as CaseEvidence;
  return {
    packetId: "3f1c2d5e-0000-4000-8000-000000000001",
    exportedAt: "2026-12-04T12:00:00.000Z",
    exportedBy: { kind: "user", id: "user-1", label: "reviewer@example.com" },
    demo: false,
    scope: { kind: "case", caseId: CASE_ID },
    cases: [item],
    signer: { keyId: signer.keyId, demo: signer.demo },
  };
}

describe("evidence packet signatures", () => {
  it("verifies a signed packet, with its key id and its timeline's chain", () => {
    const text = evidenceText(signPacket(packet(), key));
    const result = verifyEvidenceText(text, { trustedPublicKeys: [key.publicKeyPem] });
    expect(result).toMatchObject({ valid: true, keyId: key.keyId, trusted: true, demo: false });
    expect(result.valid && result.timeline).toEqual({ events: 3, intact: true, problems: [] });
  });

  it("fails when any single byte of the file is changed", () => {
    const bytes = Buffer.from(evidenceText(signPacket(packet(), key)), "utf8");
    expect(verifyEvidenceBytes(bytes).valid).toBe(true);
    for (let index = 0; index < bytes.length; index++) {
      const edited = Buffer.from(bytes);
      edited[index] = (edited[index] ?? 0) ^ 0x01;
      if (verifyEvidenceBytes(edited).valid) throw new Error(`byte ${index} (${bytes[index]}) edited still verifies`);
    }
  }, 60_000);

  it("fails when bytes are added or removed, or the file is re-formatted", () => {
    const text = evidenceText(signPacket(packet(), key));
    expect(verifyEvidenceText(`${text}\n`)).toMatchObject({ valid: false, reason: expect.stringMatching(/canonical/) });
    expect(verifyEvidenceText(` ${text}`).valid).toBe(false);
    expect(verifyEvidenceText(text.slice(0, -1)).valid).toBe(false);
    expect(verifyEvidenceText(JSON.stringify(JSON.parse(text), null, 2)).valid).toBe(false);
  });

  it("fails an edited amount even when the file is re-canonicalised", () => {
    const document = signPacket(packet(), key);
    const edited = JSON.parse(evidenceText(document)) as typeof document;
    const hold = edited.packet.cases[0]?.holds[0];
    if (hold) hold.amount.micros = "150000";
    expect(verifyEvidenceText(evidenceText(edited))).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/signature does not match/),
    });
  });

  it("refuses a packet re-signed with another key, when the recipient pins the deployment's key", () => {
    const forged = evidenceText(signPacket(packet(undefined, otherKey), otherKey));
    expect(verifyEvidenceText(forged).valid).toBe(true);
    expect(verifyEvidenceText(forged, { trustedPublicKeys: [key.publicKeyPem] })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/not a trusted key/),
    });
    // Swapping in the trusted public key does not help: the signature is not its.
    const swapped = JSON.parse(forged);
    swapped.signature.publicKey = key.publicKeyPem;
    swapped.signature.keyId = key.keyId;
    expect(verifyEvidenceText(evidenceText(swapped)).valid).toBe(false);
  });

  it("refuses a signed timeline whose events do not hold together as a chain", () => {
    const events = chain(["parked", "approved", "reopened"]);
    const second = events[1];
    if (second) second.kind = "rejected";
    const result = verifyEvidenceText(evidenceText(signPacket(packet(events), key)));
    expect(result).toMatchObject({ valid: false, reason: expect.stringMatching(/seq 2.*do not match its hash/) });
    const gap = chain(["parked", "approved", "reopened"]).filter((event) => event.seq !== 2);
    expect(verifyEvidenceText(evidenceText(signPacket(packet(gap), key))).valid).toBe(false);
  });

  it("derives the demo key from the demo's secret, and recognises the published one", () => {
    const fromSecret = demoPrivateKey("a-demo-secret-of-thirty-two-characters!!");
    expect(publicKeyPemOf(fromSecret)).not.toBe(publicKeyPemOf(demoPrivateKey(undefined)));
    expect(publicKeyPemOf(fromSecret)).toBe(publicKeyPemOf(demoPrivateKey("a-demo-secret-of-thirty-two-characters!!")));
    const published = demoPrivateKey(undefined).export({ type: "pkcs8", format: "pem" }).toString();
    expect(isPublishedDemoKey(published)).toBe(true);
    expect(isPublishedDemoKey(published.replaceAll("\n", "\\n"))).toBe(true);
    expect(isPublishedDemoKey(key.privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toBe(false);
  });
});
