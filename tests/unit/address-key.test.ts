import { describe, expect, it } from "vitest";
import { addressKey } from "@/lib/auth/address-key";

describe("the address the sign-in limits count", () => {
  it("is an IPv4 address itself", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("unknown")).toBe("unknown");
  });

  it("is an IPv6 address's /64, however the address is written", () => {
    const key = "2001:db8:aa:bb::/64";
    for (const address of [
      "2001:db8:aa:bb::1",
      "2001:db8:aa:bb:ffff:ffff:ffff:ffff",
      "2001:0DB8:00aa:00bb:0000:0000:0000:0002",
      "2001:db8:aa:bb:1:2:3.4.5.6",
      "2001:db8:aa:bb::1%eth0",
    ]) {
      expect(addressKey(address)).toBe(key);
    }
  });

  it("tells different /64s apart, short forms included", () => {
    expect(addressKey("2001:db8:aa:bc::1")).toBe("2001:db8:aa:bc::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1")).toBe("fe80:0:0:0::/64");
  });
});
