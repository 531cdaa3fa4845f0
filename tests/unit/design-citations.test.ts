import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// docs/design.md is the one place the code's rule and section numbers point to: every "rule 14",
// "Rules 6 and 7", "DESIGN 6a", "DESIGN rule 15" or "DESIGN section 10" in the code, tests and
// scripts must name a rule or section that page has, so a reader can always look it up.
const ROOT = process.cwd();
const FOLDERS = ["lib", "app", "components", "server", "scripts", "tests", "verification", "sdk", "prisma"];
const SKIPPED = new Set(["node_modules", "generated", ".next", "dist"]);
const EXTENSIONS = /\.(ts|tsx|mts|mjs|js|sql|prisma)$/;

function files(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path.join(ROOT, dir));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return files(rel);
    return EXTENSIONS.test(name) ? [rel] : [];
  });
}

type Design = { sections: Set<string>; rules: Set<string> };

/** Sections are the page's numbered `## N.` headings; rules are the numbered list under "Rules". */
function readDesign(text: string): Design {
  const sections = new Set([...text.matchAll(/^## (\d+[a-z]?)\. /gm)].map(([, n]) => n ?? ""));
  const rulesPart = text.split(/^## /m).find((part) => /^\d+[a-z]?\. Rules\b/.test(part)) ?? "";
  const rules = new Set([...rulesPart.matchAll(/^(\d+)\. \*\*/gm)].map(([, n]) => n ?? ""));
  return { sections, rules };
}

type Citation = { kind: "rule" | "section"; number: string; text: string };

const CITATION =
  /\b(DESIGN(?:\s+(rules?|sections?|§))?|[Rr]ules?|[Ss]ections?)\s*§?\s*(\d+[a-z]?(?:\s*(?:,|and|or|&|\/)\s*\d+[a-z]?)*)\b/g;
// "docs/performance.md, section 5" cites another page, not the design.
const OTHER_PAGE = /docs\/(?!design\.md)[\w./-]+\.md,?\s*$/;

function citations(line: string): Citation[] {
  return [...line.matchAll(CITATION)].flatMap((match) => {
    const [text, head = "", word = ""] = match;
    if (OTHER_PAGE.test(line.slice(0, match.index))) return [];
    const kind = /^[Rr]ule/.test(head) || /^rule/.test(word) ? "rule" : "section";
    const numbers = (match[3] ?? "").split(/\s*(?:,|and|or|&|\/)\s*/).filter(Boolean);
    return numbers.map((number) => ({ kind, number, text }));
  });
}

function unresolved(design: Design, citation: Citation): boolean {
  return !(citation.kind === "rule" ? design.rules : design.sections).has(citation.number);
}

const design = readDesign(readFileSync(path.join(ROOT, "docs", "design.md"), "utf8"));

describe("every rule or section the code cites exists in docs/design.md", () => {
  it("reads the design's rules and sections", () => {
    expect([...design.rules]).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    expect(design.sections).toContain("6a");
    expect(design.sections).toContain("10");
  });

  it("finds every citation in the code and each resolves", () => {
    const found: string[] = [];
    const broken: string[] = [];
    // This file's own probes below cite numbers that lead nowhere on purpose.
    for (const file of FOLDERS.flatMap(files).filter(
      (f) => f !== path.join("tests", "unit", "design-citations.test.ts"),
    )) {
      readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const citation of citations(line)) {
            found.push(citation.text);
            if (unresolved(design, citation)) broken.push(`${file}:${i + 1}: "${citation.text}"`);
          }
        });
    }
    expect(found.length).toBeGreaterThan(100);
    expect(broken).toEqual([]);
    // Reading every file takes a second on a quiet machine and many on a busy one: the verdict is
    // the list above, never the time it took.
  }, 120_000);

  it("reads every spelling of a citation, and refuses one that leads nowhere", () => {
    const read = (line: string) => citations(line).map((c) => `${c.kind} ${c.number}`);
    expect(read("// Rule 14: look again before paying")).toEqual(["rule 14"]);
    expect(read("* Rules 6 and 7: only finance resolves a hold")).toEqual(["rule 6", "rule 7"]);
    expect(read("-- Rule 7 and 15: a ledger entry is written once")).toEqual(["rule 7", "rule 15"]);
    expect(read("(DESIGN 6a) and DESIGN rule 15, DESIGN section 10")).toEqual(["section 6a", "rule 15", "section 10"]);
    expect(read("four-eyes (section 6)")).toEqual(["section 6"]);
    expect(read("(docs/performance.md, section 5)")).toEqual([]);
    for (const line of ["// Rule 6a: a permit", "// rule 21", "DESIGN section 12", "DESIGN 7b"])
      expect(
        citations(line).some((c) => unresolved(design, c)),
        line,
      ).toBe(true);
  });
});
