import { describe, expect, it } from "vitest";
import { checkLeaseHolder, isLeaseExpired, nextLease } from "./lease";

const now = new Date("2026-11-06T12:00:00Z");
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const codeOf = (result: ReturnType<typeof checkLeaseHolder>) => (result.ok ? "ok" : result.error.code);

describe("nextLease", () => {
  it("increments the fencing token and sets the lease end", () => {
    const lease = nextLease(4, "worker-a", now, 30);
    expect(lease).toEqual({ holderId: "worker-a", fencingToken: 5, leaseUntil: later(30) });
    expect(nextLease(0, "w", now).leaseUntil).toEqual(later(60));
  });

  it("refuses bad tokens and lengths", () => {
    expect(() => nextLease(-1, "w", now)).toThrow(RangeError);
    expect(() => nextLease(1.5, "w", now)).toThrow(RangeError);
    expect(() => nextLease(1, "w", now, 0)).toThrow(RangeError);
  });
});

describe("checkLeaseHolder", () => {
  const lease = nextLease(1, "worker-a", now, 30);

  it("accepts the holder with the current token before expiry", () => {
    expect(codeOf(checkLeaseHolder(lease, { holderId: "worker-a", fencingToken: 2 }, later(29)))).toBe("ok");
  });

  it("refuses another worker, a missing lease, an old token and an expired lease", () => {
    expect(codeOf(checkLeaseHolder(lease, { holderId: "worker-b", fencingToken: 2 }, now))).toBe("not_claim_owner");
    expect(codeOf(checkLeaseHolder(null, { holderId: "worker-a", fencingToken: 2 }, now))).toBe("not_claim_owner");
    expect(codeOf(checkLeaseHolder(lease, { holderId: "worker-a", fencingToken: 1 }, now))).toBe("stale_fencing_token");
    expect(codeOf(checkLeaseHolder(lease, { holderId: "worker-a", fencingToken: 2 }, later(30)))).toBe(
      "not_claim_owner",
    );
  });

  it("expires exactly at leaseUntil", () => {
    expect(isLeaseExpired(lease, later(29.999))).toBe(false);
    expect(isLeaseExpired(lease, later(30))).toBe(true);
  });
});
