import { describe, expect, it } from "vitest";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { AppError } from "@/lib/errors";
import type { ApiRequest } from "./api-request";
import { OtherAccountRefused } from "./authenticate-provider";
import {
  admitWebhook,
  countsAgainstAddress,
  countWebhookRefusal,
  throttleKey,
  WEBHOOK_REFUSAL_WINDOW_MS,
  WEBHOOK_REFUSALS_PER_WINDOW,
} from "./webhook-throttle";

const from = (address: string): ApiRequest => ({
  method: "POST",
  url: "/api/v1/provider-webhooks/replicate",
  header: (name) => (name === SOCKET_ADDRESS_HEADER ? address : null),
  body: async function* () {},
});

describe("unverified webhooks are throttled per client address", () => {
  it("keys IPv4 by address and IPv6 by its /64", () => {
    expect(throttleKey("203.0.113.7")).toBe("203.0.113.7");
    expect(throttleKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(throttleKey("2001:0db8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(throttleKey("2001:db8::5")).toBe("2001:db8:0:0::/64");
  });

  it("refuses an address past the limit until its window ends, and leaves other addresses alone", () => {
    const now = 1_000_000;
    const key = admitWebhook(from("2001:db8:aa:bb::1"), now);
    for (let i = 0; i < WEBHOOK_REFUSALS_PER_WINDOW; i++) countWebhookRefusal(key, now);
    // Another host in the same /64 is the same client.
    expect(() => admitWebhook(from("2001:db8:aa:bb::99"), now + 1)).toThrow(/Too many unverified webhooks/);
    expect(() => admitWebhook(from("2001:db8:aa:cc::1"), now + 1)).not.toThrow();
    expect(() => admitWebhook(from("198.51.100.1"), now + 1)).not.toThrow();
    expect(() => admitWebhook(from("2001:db8:aa:bb::1"), now + WEBHOOK_REFUSAL_WINDOW_MS)).not.toThrow();
  });
});

describe("which refusals count against an address", () => {
  it("counts what cannot verify, never a webhook a provider really signed for an account that is not ours", () => {
    expect(countsAgainstAddress(new AppError("unauthenticated", "bad signature"))).toBe(true);
    expect(countsAgainstAddress(new OtherAccountRefused("fal"))).toBe(false);
    expect(countsAgainstAddress(new OtherAccountRefused("fal", "fal webhooks need FAL_USER_ID"))).toBe(false);
    expect(countsAgainstAddress(new Error("boom"))).toBe(false);
  });
});
