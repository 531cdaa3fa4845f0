import { describe, expect, it } from "vitest";
import { checkDownloadUrl, hostPolicy } from "./hosts";

const replicate = hostPolicy("https://api.replicate.com", ["replicate.delivery", "*.replicate.delivery"]);
const local = hostPolicy("http://127.0.0.1:4010/replicate", []);
const allowed = (url: string, policy = replicate) => checkDownloadUrl(url, policy).ok;

describe("checkDownloadUrl", () => {
  it("accepts the base host and the documented delivery hosts over https", () => {
    expect(allowed("https://api.replicate.com/x")).toBe(true);
    expect(allowed("https://replicate.delivery/xezq/abc/output.mp4")).toBe(true);
    expect(allowed("https://pbxt.replicate.delivery/abc/out.mp4")).toBe(true);
  });

  it("refuses look-alike hosts, other schemes and embedded credentials", () => {
    expect(allowed("https://replicate.delivery.evil.example/out.mp4")).toBe(false);
    expect(allowed("https://evilreplicate.delivery/out.mp4")).toBe(false);
    expect(allowed("http://replicate.delivery/out.mp4")).toBe(false);
    expect(allowed("file:///etc/passwd")).toBe(false);
    expect(allowed("https://user:pw@replicate.delivery/out.mp4")).toBe(false);
    expect(allowed("not a url")).toBe(false);
  });

  it("matches host and port exactly for a local http base URL", () => {
    expect(allowed("http://127.0.0.1:4010/delivery/x", local)).toBe(true);
    expect(allowed("http://127.0.0.1:4011/delivery/x", local)).toBe(false);
    expect(allowed("http://localhost:4010/delivery/x", local)).toBe(false);
  });

  it("uses an explicit list instead of the defaults when configured", () => {
    const custom = hostPolicy("https://queue.fal.run", [], ["cdn.example.com"]);
    expect(allowed("https://cdn.example.com/a.mp4", custom)).toBe(true);
    expect(allowed("https://queue.fal.run/a.mp4", custom)).toBe(false);
  });
});
