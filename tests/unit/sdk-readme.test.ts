import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The README's producer is sdk/examples/producer.ts, which tests/integration/sdk-package.test.ts
// compiles against the installed package: the copy in the README must be that file, character for
// character, or the README could show code that no longer compiles.
const ROOT = path.resolve(__dirname, "..", "..");
const MARKER = "<!-- sdk/examples/producer.ts -->\n```ts\n";

describe("the README's Producer SDK example", () => {
  it("is sdk/examples/producer.ts", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf(MARKER);
    expect(start, "README.md lost the example's marker").toBeGreaterThan(-1);
    const from = start + MARKER.length;
    const end = readme.indexOf("```\n", from);
    expect(readme.slice(from, end)).toBe(readFileSync(path.join(ROOT, "sdk", "examples", "producer.ts"), "utf8"));
  });
});
