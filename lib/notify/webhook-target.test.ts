import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { parseWebhookAllowList, webhookAllowListFromEnv } from "./webhook-allow-list";
import { vetWebhookTarget, type WebhookLookup } from "./webhook-target";

const none = parseWebhookAllowList("");
const resolvesTo =
  (...addresses: string[]): WebhookLookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("the allow-list", () => {
  it("is empty in production and this machine's loopback names in demo mode, unless set", () => {
    expect(webhookAllowListFromEnv({ demo: false }).entries).toEqual([]);
    expect(webhookAllowListFromEnv({ demo: true }).entries).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(webhookAllowListFromEnv({ demo: true, WEBHOOK_ALLOWED_HOSTS: "hooks.test" }).entries).toEqual([
      "hooks.test",
    ]);
    const list = parseWebhookAllowList(" Hooks.Test. , 10.0.0.0/8, [::1] ");
    expect([...list.hosts]).toEqual(["hooks.test"]);
    expect(list.ranges).toHaveLength(2);
  });

  it("is read from WEBHOOK_ALLOWED_HOSTS, which refuses what is not a host, an address or a range", () => {
    const env = parseEnv({ WEBHOOK_ALLOWED_HOSTS: "receiver.test, 10.0.0.0/8, [::1]" });
    expect(webhookAllowListFromEnv(env).entries).toEqual(["receiver.test", "10.0.0.0/8", "[::1]"]);
    expect(() => parseEnv({ WEBHOOK_ALLOWED_HOSTS: "https://receiver.test/" })).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
  });
});

describe("vetWebhookTarget", () => {
  it("picks the one checked address of a public https name", async () => {
    const vetted = await vetWebhookTarget("https://hooks.example.com/x?a=1", none, resolvesTo("93.184.215.14"));
    expect(vetted).toMatchObject({ ok: true, target: { hostname: "hooks.example.com", address: "93.184.215.14" } });
  });

  it.each([
    ["a private answer", "https://a.example/", resolvesTo("192.168.0.10"), /192\.168\.0\.10, a private address/],
    ["a private answer among public ones", "https://a.example/", resolvesTo("8.8.8.8", "10.0.0.1"), /10\.0\.0\.1/],
    ["a NAT64 answer carrying loopback", "https://a.example/", resolvesTo("64:ff9b::7f00:1"), /carrying a loopback/],
    ["a 6to4 answer carrying a private one", "https://a.example/", resolvesTo("2002:a00:1::"), /carrying a private/],
    ["plain http to a public name", "http://a.example/", resolvesTo("8.8.8.8"), /https/],
    ["an octal loopback literal", "https://0177.0.0.1/", resolvesTo(), /loopback/],
    ["no answer", "https://a.example/", resolvesTo(), /no address/],
  ])("refuses %s", async (_name, url, lookup, reason) => {
    const vetted = await vetWebhookTarget(url, none, lookup);
    expect(vetted.ok).toBe(false);
    expect(vetted.ok ? "" : vetted.reason).toMatch(reason);
  });

  it("lets the allow-list through by name or by range, over http too", async () => {
    const allow = parseWebhookAllowList("receiver.test,10.20.0.0/16");
    expect((await vetWebhookTarget("http://receiver.test:8080/", allow, resolvesTo("127.0.0.1"))).ok).toBe(true);
    expect((await vetWebhookTarget("https://b.example/", allow, resolvesTo("10.20.3.4"))).ok).toBe(true);
    expect((await vetWebhookTarget("https://b.example/", allow, resolvesTo("10.21.3.4"))).ok).toBe(false);
  });
});
