import { describe, expect, it } from "vitest";
import { formatIp, parseCidr, parseIp, refusedAddressReason, refusedHostnameReason } from "./ip-address";

const reasonFor = (text: string) => {
  const address = parseIp(text);
  if (!address) throw new Error(`not an address: ${text}`);
  return refusedAddressReason(address);
};

describe("refusedAddressReason", () => {
  const refused: [string, RegExp][] = [
    ["10.0.0.1", /private/],
    ["10.255.255.255", /private/],
    ["172.16.0.1", /private/],
    ["172.31.255.254", /private/],
    ["192.168.1.1", /private/],
    ["127.0.0.1", /loopback/],
    ["127.1.2.3", /loopback/],
    ["0.0.0.0", /this network/],
    ["0.1.2.3", /this network/],
    ["169.254.169.254", /metadata/],
    ["169.254.1.1", /link-local/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["100.127.255.255", /carrier-grade NAT/],
    ["192.0.0.8", /IETF/],
    ["198.18.0.1", /benchmarking/],
    ["198.19.255.255", /benchmarking/],
    ["224.0.0.1", /multicast/],
    ["239.255.255.250", /multicast/],
    ["240.0.0.1", /reserved/],
    ["255.255.255.255", /reserved or broadcast/],
    ["::1", /loopback/],
    ["0:0:0:0:0:0:0:1", /loopback/],
    ["::", /unspecified/],
    ["fc00::1", /unique-local/],
    ["fd00:ec2::254", /unique-local/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["febf:ffff::1", /link-local/],
    ["ff02::1", /multicast/],
    ["::ffff:127.0.0.1", /IPv4-mapped/],
    ["::ffff:7f00:1", /IPv4-mapped/],
    ["::ffff:8.8.8.8", /IPv4-mapped/],
    ["::ffff:a9fe:a9fe", /IPv4-mapped/],
    ["::127.0.0.1", /IPv4-compatible/],
    ["64:ff9b::10.0.0.1", /carrying a private/],
    ["64:ff9b::7f00:1", /carrying a loopback/],
    ["64:ff9b::a9fe:a9fe", /carrying a cloud metadata/],
    ["2002:7f00:1::", /carrying a loopback/],
    ["2002:c0a8:101::1", /carrying a private/],
    ["2002:a9fe:a9fe::", /carrying a cloud metadata/],
    ["2001:db8::1", /documentation/],
    ["2001:0:4136:e378::1", /Teredo/],
    ["[::1]", /loopback/],
  ];
  it.each(refused)("refuses %s", (text, reason) => {
    expect(reasonFor(text)).toMatch(reason);
  });

  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.1",
    "169.253.255.255",
    "198.17.255.255",
    "198.20.0.1",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ];
  it.each(allowed)("allows the public address %s", (text) => {
    expect(reasonFor(text)).toBeNull();
  });
});

describe("parseIp", () => {
  // Forms a resolver accepts for 127.0.0.1 (inet_aton), which a URL host may be written in.
  const loopbackForms = [
    "2130706433",
    "0x7f.1",
    "0x7f000001",
    "0177.0.0.1",
    "0177.1",
    "127.1",
    "127.0.1",
    "0x7F.0.0.1",
  ];
  it.each(loopbackForms)("reads %s as 127.0.0.1", (text) => {
    const address = parseIp(text);
    expect(address && formatIp(address)).toBe("127.0.0.1");
    expect(address && refusedAddressReason(address)).toMatch(/loopback/);
  });

  it.each([
    "example.com",
    "256.0.0.1",
    "1.2.3.4.5",
    "08.0.0.1",
    "1.2.3.",
    "",
    "::1::2",
    "1:2:3:4:5:6:7:8:9",
    "12345::",
    "cafe",
    "::ffff:1.2.3.256",
  ])("does not read %s as an address", (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it("expands IPv6 shorthand", () => {
    expect(parseIp("::ffff:127.0.0.1")).toEqual(parseIp("0:0:0:0:0:ffff:7f00:1"));
    expect(parseIp("[fe80::1%25eth0]")).toEqual(parseIp("fe80::1"));
  });
});

describe("parseCidr", () => {
  it("reads ranges and single addresses, and refuses nonsense", () => {
    expect(parseCidr("10.0.0.0/8")).toEqual({ family: 4, base: 10n, bits: 8 });
    expect(parseCidr("127.0.0.1")).toMatchObject({ family: 4, bits: 32 });
    expect(parseCidr("::1")).toMatchObject({ family: 6, bits: 128 });
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/x", "a/8", "1.2.3.4/8/9"]) expect(parseCidr(bad)).toBeNull();
  });
});

describe("refusedHostnameReason", () => {
  it.each([
    ["metadata.google.internal", /metadata/],
    ["METADATA.GOOGLE.INTERNAL.", /metadata/],
    ["metadata", /metadata/],
    ["localhost", /this machine/],
    ["api.localhost", /this machine/],
    ["printer.local", /local network/],
    ["db.corp.internal", /local network/],
  ])("refuses %s", (name, reason) => {
    expect(refusedHostnameReason(name)).toMatch(reason);
  });
  it("allows ordinary public names", () => {
    expect(refusedHostnameReason("hooks.example.com")).toBeNull();
    expect(refusedHostnameReason("localhost.evil.example")).toBeNull();
  });
});
