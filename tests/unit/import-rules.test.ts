import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

// Imports run one way: page or route -> action/handler -> service -> domain + db. biome.json
// enforces three of the rules (domain imports only itself, services never import api, actions,
// app or components, tests reach outside their folder only through "@/"). The fourth, "components
// import services only as types", needs to tell `import type` from a value import, which Biome's
// restricted imports cannot, so it is checked here.
const ROOT = join(__dirname, "..", "..");
const BIOME = join(ROOT, "node_modules", ".bin", "biome");
const SERVICES = "lib/services";

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(name) ? [rel] : [];
  });
}

/** The repository path a specifier names, for the alias and relative forms; undefined for packages. */
function target(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("@/")) return specifier.slice(2);
  if (specifier.startsWith(".")) return relative(ROOT, join(ROOT, dirname(file), specifier));
  return undefined;
}

/** Every way `file` reaches lib/services at run time: value imports, value re-exports, import(). */
function valueImportsOfServices(file: string, source: string): string[] {
  const found: string[] = [];
  const intoServices = (specifier: string) => {
    const path = target(file, specifier);
    return path !== undefined && (path === SERVICES || path.startsWith(`${SERVICES}/`));
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly && intoServices(node.moduleSpecifier.text)) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((element) => element.isTypeOnly));
      if (!typeOnly && intoServices(node.moduleSpecifier.text)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0]) &&
      intoServices(node.arguments[0].text)
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX));
  return found;
}

describe("components import services only as types", () => {
  it("no component reaches a service at run time", () => {
    const offenders = sourceFiles("components").flatMap((file) =>
      valueImportsOfServices(file, readFileSync(join(ROOT, file), "utf8")).map((specifier) => `${file}: ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it("tells type imports from value imports, in every spelling", () => {
    const file = "components/case/probe.tsx";
    // Relative specifiers are spliced in, so a rewrite of the tree's relative imports leaves these probes alone.
    const up = "../../lib/services/case/get-case";
    const allowed = [
      'import type { CaseDetail } from "@/lib/services/case/get-case";',
      'import { type CaseDetail } from "@/lib/services/case/get-case";',
      'export type { CaseDetail } from "@/lib/services/case/get-case";',
      `import type { X } from "${up}";`,
      'import { formatMicros } from "@/lib/domain/money";',
    ];
    const refused = [
      'import { getCase } from "@/lib/services/case/get-case";',
      'import { type CaseDetail, getCase } from "@/lib/services/case/get-case";',
      'import getCase from "@/lib/services/case/get-case";',
      'import * as cases from "@/lib/services/case/get-case";',
      'import "@/lib/services/case/get-case";',
      `import { getCase } from "${up}";`,
      'export { getCase } from "@/lib/services/case/get-case";',
      'const m = await import("@/lib/services/case/get-case");',
    ];
    for (const line of allowed) expect(valueImportsOfServices(file, line), line).toEqual([]);
    for (const line of refused) expect(valueImportsOfServices(file, line), line).toHaveLength(1);
  });
});

/** Every module specifier a file names: imports, re-exports, import() and require(). */
function specifiers(file: string, source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX));
  return found;
}

// The simulator, benchmarks and the simulation/chaos/soak/fuzz runs check the product from outside:
// the product itself (lib, app, components, server) never depends on them. Only the launcher's
// simulator entry (scripts/simulator.ts) starts the simulator, for the demo.
describe("the product never imports the verification tree", () => {
  const intoVerification = (file: string, specifier: string) => {
    const path = target(file, specifier);
    return path !== undefined && (path === "verification" || path.startsWith("verification/"));
  };

  it("no file under lib, app, components or server names verification/", () => {
    const offenders = ["lib", "app", "components", "server"].flatMap(sourceFiles).flatMap((file) =>
      specifiers(file, readFileSync(join(ROOT, file), "utf8"))
        .filter((specifier) => intoVerification(file, specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(offenders).toEqual([]);
    // Parsing every product file takes a second on a quiet machine and many on a busy one: the
    // verdict is the list above, never the time it took.
  }, 120_000);

  it("sees every spelling of such an import", () => {
    const file = "lib/worker/probe.ts";
    const lines = [
      'import { startSimulator } from "@/verification/simulator";',
      'import type { X } from "../../verification/simulator/state";',
      'export { startSimulator } from "@/verification/simulator";',
      'const m = await import("@/verification/bench/run");',
    ];
    for (const line of lines)
      expect(
        specifiers(file, line).filter((s) => intoVerification(file, s)),
        line,
      ).toHaveLength(1);
    expect(specifiers(file, 'import { x } from "@/lib/providers";').filter((s) => intoVerification(file, s))).toEqual(
      [],
    );
  });
});

// Each Biome rule is fed a file that breaks it and one that keeps it, so a rule whose folder glob
// or pattern stopped matching cannot pass silently. The probes are linted in a scratch copy of the
// configuration, never written into the tree.
// Each probe starts biome: the limit only catches a hang, not a slow start on a loaded machine.
describe("biome's restricted imports", { timeout: 60_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "import-rules-"));
  copyFileSync(join(ROOT, "biome.json"), join(scratch, "biome.json"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function restricted(path: string, line: string): boolean {
    const absolute = join(scratch, path);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, `${line}\n\nexport const probe = [used];\n`);
    const run = spawnSync(BIOME, ["lint", "--only=style/noRestrictedImports", "--vcs-enabled=false", path], {
      cwd: scratch,
      encoding: "utf8",
    });
    const output = `${run.stdout}${run.stderr}`;
    if (!/Checked 1 file/.test(output)) throw new Error(`biome did not lint ${path}:\n${output}`);
    return output.includes("lint/style/noRestrictedImports");
  }

  // [file, specifier, restricted]; the import line is built from the specifier.
  const cases: [string, string, boolean][] = [
    ["lib/domain/probe.ts", "@/lib/db/client", true],
    ["lib/domain/probe.ts", "../services/get-case", true],
    ["lib/domain/probe.ts", "next/server", true],
    ["lib/domain/probe.ts", "@prisma/client", true],
    ["lib/domain/probe.ts", "./stages", false],
    ["lib/domain/probe.ts", "@/lib/domain/stages", false],
    ["lib/services/probe.ts", "@/lib/api/read-json-body", true],
    ["lib/services/probe.ts", "../api/read-json-body", true],
    ["lib/services/probe.ts", "@/lib/actions/safe-action", true],
    ["lib/services/case-writer/probe.ts", "../../actions/safe-action", true],
    ["lib/services/probe.ts", "@/app/api/v1/cases/route", true],
    ["lib/services/probe.ts", "@/components/case/case-live", true],
    ["lib/services/probe.ts", "@/lib/db/client", false],
    ["lib/services/case-writer/probe.ts", "../actor", false],
    ["tests/integration/probe.test.ts", "../../lib/db/client", true],
    ["tests/integration/helpers/probe.ts", "../fixtures", true],
    ["tests/integration/probe.test.ts", "@/lib/db/client", false],
    ["tests/integration/probe.test.ts", "./fixtures", false],
  ];
  it.each(cases)("%s: %s -> restricted %s", (path, specifier, expected) => {
    expect(restricted(path, `import { used } from "${specifier}";`)).toBe(expected);
  });
});
