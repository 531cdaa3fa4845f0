import { describe, expect, it } from "vitest";
import { localUrl } from "@/scripts/launcher/urls";

describe("the worker loop's address of the server", () => {
  it("is the bound host, or the loopback of its family for a wildcard bind", () => {
    expect(localUrl("127.0.0.1", 3000)).toBe("http://127.0.0.1:3000");
    expect(localUrl("0.0.0.0", 3000)).toBe("http://127.0.0.1:3000");
    expect(localUrl("::", 3000)).toBe("http://[::1]:3000");
    expect(localUrl("::1", 3000)).toBe("http://[::1]:3000");
    expect(localUrl("10.1.2.3", 8080)).toBe("http://10.1.2.3:8080");
  });
});
