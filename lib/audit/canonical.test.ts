import { describe, expect, it } from "vitest";
import {
  canonicalContent,
  chainKeyOf,
  chainOwnerOf,
  eventHash,
  GENESIS_HEX,
  isRedactedJson,
  redactedJson,
  textDigest,
} from "./canonical";

const event = {
  id: "42",
  caseId: "0b5e4c1a-3f7e-4a51-9d0c-2f7f1f6d9a10",
  operationRef: null,
  seq: 3,
  prevHash: GENESIS_HEX,
  episode: 1,
  actorKind: "user",
  actorId: "ü-7",
  actorLabelDigest: textDigest("Ana") as string,
  kind: "note_added",
  beforeDigest: null,
  afterDigest: null,
  evidenceDigest: textDigest('{"text": "hi"}'),
  createdAtMicros: "1764633600123000",
};

describe("canonical content v1", () => {
  it("is one name=value line per field, in a fixed order, short texts counted in UTF-8 bytes", () => {
    expect(canonicalContent(event)).toBe(
      [
        "audit-chain-v1",
        "id=42",
        "chain=0b5e4c1a-3f7e-4a51-9d0c-2f7f1f6d9a10",
        "seq=3",
        `prev=${"0".repeat(64)}`,
        "episode=1",
        "actor_kind=user",
        "actor_id=4:ü-7",
        `actor_label_sha256=${textDigest("Ana")}`,
        "kind=10:note_added",
        "before_sha256=",
        "after_sha256=",
        `evidence_sha256=${textDigest('{"text": "hi"}')}`,
        "created_at_us=1764633600123000",
        "",
      ].join("\n"),
    );
  });

  it("puts case-less events on the system chain and spells NULLs apart from empty text", () => {
    const content = canonicalContent({ ...event, caseId: null, episode: null, actorId: null });
    expect(content).toContain("\nchain=system\n");
    expect(content).toContain("\nepisode=\n");
    expect(content).toContain("\nactor_id=-\n");
    expect(canonicalContent({ ...event, actorId: "" })).toContain("\nactor_id=0:\n");
  });

  it("puts an operation's events without a case on its own chain, and a case's on the case's", () => {
    const operationRef = "7d0f5a2e-1c3b-4e8f-9a6d-5b4c3d2e1f00";
    expect(canonicalContent({ ...event, caseId: null, operationRef })).toContain(`\nchain=operation:${operationRef}\n`);
    expect(chainOwnerOf(`operation:${operationRef}`)).toEqual({ caseId: null, operationRef });
    expect(chainKeyOf(event.caseId, operationRef)).toBe(event.caseId);
    expect(chainOwnerOf(chainKeyOf(event.caseId, null))).toEqual({ caseId: event.caseId, operationRef: null });
    expect(chainOwnerOf("system")).toEqual({ caseId: null, operationRef: null });
  });

  it("a newline inside a short text cannot pose as another field", () => {
    const forged = { ...event, kind: "x\nseq=9" };
    expect(canonicalContent(forged)).toContain("\nkind=7:x\nseq=9\n");
    expect(eventHash(forged)).not.toBe(eventHash(event));
  });

  it("hashes to SHA-256 of that text, in lowercase hex", () => {
    expect(eventHash(event)).toMatch(/^[0-9a-f]{64}$/);
    expect(textDigest("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("every field enters the hash", () => {
    const base = eventHash(event);
    const changes = [
      { id: "43" },
      { seq: 4 },
      { prevHash: "01".repeat(32) },
      { episode: 2 },
      { actorKind: "worker" },
      { actorId: "ü-8" },
      { actorLabelDigest: textDigest("Bo") as string },
      { kind: "approved" },
      { beforeDigest: textDigest("{}") },
      { afterDigest: textDigest("{}") },
      { evidenceDigest: null },
      { createdAtMicros: "1764633600124000" },
      { caseId: null },
      { caseId: null, operationRef: "7d0f5a2e-1c3b-4e8f-9a6d-5b4c3d2e1f00" },
    ];
    for (const change of changes) expect(eventHash({ ...event, ...change })).not.toBe(base);
  });
});

describe("redaction marker", () => {
  it("is an object with the one marker key and a reason", () => {
    expect(isRedactedJson(JSON.stringify(redactedJson("retention policy 2027-06-01")))).toBe(true);
    expect(isRedactedJson('{"$redacted": "policy", "text": "kept"}')).toBe(false);
    expect(isRedactedJson('{"$redacted": true}')).toBe(false);
    expect(isRedactedJson('["$redacted"]')).toBe(false);
    expect(isRedactedJson("not json")).toBe(false);
  });
});
