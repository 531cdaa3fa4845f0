import { describe, expect, it } from "vitest";
import { statementNamer } from "./statement-names";

describe("statement names", () => {
  it("give one text one name, and different texts different names", () => {
    const name = statementNamer();
    const claim = name({ sql: "SELECT $1::int" });
    expect(claim).toMatch(/^s_[A-Za-z0-9_-]{24}$/);
    expect(name({ sql: "SELECT $1::int" })).toBe(claim);
    expect(name({ sql: "SELECT $1::text" })).not.toBe(claim);
    // Another namer (another client in the process) agrees: the name depends on the text alone.
    expect(statementNamer()({ sql: "SELECT $1::int" })).toBe(claim);
  });

  it("leave texts past the cap unnamed, and keep naming the texts already known", () => {
    const name = statementNamer(2);
    const first = name({ sql: "a" });
    name({ sql: "b" });
    expect(name({ sql: "c" })).toBe("");
    expect(name({ sql: "a" })).toBe(first);
  });
});
