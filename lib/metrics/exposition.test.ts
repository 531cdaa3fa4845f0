import { describe, expect, it } from "vitest";
import { exposition } from "./exposition";

describe("Prometheus exposition", () => {
  it("writes HELP, TYPE and escaped labels", () => {
    const text = exposition([
      {
        name: "open_cases",
        type: "gauge",
        help: "Open cases",
        samples: [{ name: "open_cases", labels: { stage: 'a"b' }, value: 3 }],
      },
    ]);
    expect(text).toBe('# HELP open_cases Open cases\n# TYPE open_cases gauge\nopen_cases{stage="a\\"b"} 3\n');
  });
});
