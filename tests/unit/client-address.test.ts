import { describe, expect, it } from "vitest";
import { clientAddress } from "../../lib/auth/client-address";

describe("client address for rate limiting", () => {
  it("uses the hop appended nearest to the server, not a client-chosen first entry", () => {
    expect(clientAddress({ "x-forwarded-for": "1.2.3.4, 10.0.0.9" })).toBe("10.0.0.9");
    expect(clientAddress({ "x-real-ip": "10.0.0.7" })).toBe("10.0.0.7");
    expect(clientAddress({})).toBe("unknown");
  });
});
