import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Two rules every service keeps (decision 044, README "Architecture"):
// - input: adapters (route handlers, server actions) parse with zod; a service takes the typed
//   result and never parses it again, so there is one place a request's shape is decided;
// - settings: a service is handed the configuration it needs by its caller; it never reads the
//   environment itself, so a test or a second caller can run it with other settings.
const SERVICES = path.join(process.cwd(), "lib", "services");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [full] : [];
  });
}

const services = sourceFiles(SERVICES).map((file) => ({
  name: path.relative(process.cwd(), file),
  text: readFileSync(file, "utf8"),
}));

/** Value imports only: `import type { … }` and `import { type X }` name types, which are free to cross. */
function valueImports(text: string, from: RegExp): string[] {
  return [...text.matchAll(/^import\s+(?!type\s)([\s\S]*?)\s+from\s+"([^"]+)";/gm)].flatMap(([, clause, specifier]) => {
    if (!specifier || !from.test(specifier)) return [];
    const names = (clause ?? "")
      .replace(/[{}]/g, "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "" && !name.startsWith("type "));
    return names.map((name) => `${name} from ${specifier}`);
  });
}

/** Every way a service could parse its input again: zod itself, a schema, or the adapters' parser. */
function inputParsing(text: string): string[] {
  const found: string[] = [];
  if (/from\s+"zod"/.test(text)) found.push('imports "zod"');
  for (const match of text.matchAll(/(\w+)\s*\.\s*(safeParse|parse|parseAsync|safeParseAsync)\s*\(/g))
    if (match[1] !== "JSON" && match[1] !== "Date") found.push(`${match[1]}.${match[2]}(`);
  if (/\bparseInput\s*\(/.test(text)) found.push("parseInput(");
  for (const name of valueImports(text, /lib\/validation\//))
    if (/Schema\b|parse/i.test(name.split(" ")[0] ?? "")) found.push(name);
  return found;
}

/** Every way a service could read its configuration itself. */
function settingsReading(text: string): string[] {
  const found: string[] = [];
  for (const name of valueImports(text, /(^|\/)lib\/env$|^\.\.?\/(\.\.\/)*env$/)) found.push(name);
  if (/\bprocess\.env\b/.test(text)) found.push("process.env");
  if (/\benv\(\)/.test(text)) found.push("env()");
  return found;
}

describe("services take typed input: adapters parse", () => {
  it("finds the services", () => {
    expect(services.length).toBeGreaterThan(50);
    expect(services.map((s) => s.name)).toContain(path.join("lib", "services", "admin", "create-user.ts"));
  });

  it.each(services.map((s) => [s.name, s.text] as const))("%s parses no input", (_name, text) => {
    expect(inputParsing(text)).toEqual([]);
  });

  it("sees every spelling of parsing in a service", () => {
    const refused = [
      'import { z } from "zod";',
      'import type { z } from "zod";',
      "const input = createUserSchema.parse(raw);",
      "if (!currencySchema.safeParse(input.currency).success) return;",
      "const input = await schema.parseAsync(raw);",
      "const input = parseInput(userIdSchema, raw);",
      'import { createUserSchema } from "@/lib/validation/admin";',
      'import { parseQueueParams } from "@/lib/validation/queue-params";',
    ];
    const allowed = [
      'import type { CreateUserInput } from "@/lib/validation/admin";',
      'import { type ListCasesQuery } from "@/lib/validation/list-cases";',
      "const cursor = JSON.parse(text) as Cursor;",
      "const at = Date.parse(report.createdAt);",
      'import { requireEndpointUrl } from "@/lib/validation/admin";',
    ];
    for (const line of refused) expect(inputParsing(line), line).not.toEqual([]);
    for (const line of allowed) expect(inputParsing(line), line).toEqual([]);
  });
});

describe("services are handed their settings", () => {
  it.each(services.map((s) => [s.name, s.text] as const))("%s reads no configuration itself", (_name, text) => {
    expect(settingsReading(text)).toEqual([]);
  });

  it("sees every spelling of reading the environment", () => {
    const refused = [
      'import { env } from "@/lib/env";',
      'import { type Env, env } from "@/lib/env";',
      'import { env } from "../../env";',
      "const secret = process.env.AUTH_SECRET;",
      "const mode = env().providerMode;",
    ];
    const allowed = [
      'import type { Env } from "@/lib/env";',
      'function f(settings: Pick<Env, "STORE_PROMPTS">) { return settings.STORE_PROMPTS; }',
    ];
    for (const line of refused) expect(settingsReading(line), line).not.toEqual([]);
    for (const line of allowed) expect(settingsReading(line), line).toEqual([]);
  });
});
