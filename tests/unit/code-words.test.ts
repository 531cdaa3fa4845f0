import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CASE_OUTCOME_WORDS, OBSERVATION_WORDS, PERMISSION_WORDS } from "@/components/ui/code-words";
import { STAGE_LABEL, STATE_LABEL } from "@/components/ui/labels";
import { AUDIT_KINDS } from "@/lib/domain/case-commands";
import { PERMISSIONS } from "@/lib/domain/roles";
import { CASE_STATES, STAGES } from "@/lib/domain/stages";
import { hasWordsFor } from "@/lib/domain/timeline-words";
import { FRESH_CHECK_KIND } from "@/lib/services/case/look-for-original-job";

// Every code the console shows a person has words, one map per family. Codes without a list of
// their own are read off the source that writes them, so a new one fails here until it has words.

const sources = (dir: string): { file: string; text: string }[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [{ file, text: readFileSync(file, "utf8") }] : [];
  });
const LIB = sources("lib");
const all = (pattern: RegExp, texts = LIB) =>
  new Set(texts.flatMap(({ text }) => [...text.matchAll(pattern)].map((m) => m[1] as string)));
const literals = (expression: string) => [...expression.matchAll(/"([a-z_]+)"/g)].map((m) => m[1] as string);
const missing = (codes: Iterable<string>, hasWords: (code: string) => boolean) =>
  [...codes].filter((code) => !hasWords(code));
const known = (family: Record<string, string>) => (code: string) => Object.hasOwn(family, code);

/** The kinds handed to the audit writer: literals, ternaries and constants at each call site. */
function auditKinds(): Set<string> {
  const writers = LIB.filter(({ text }) => /@\/lib\/audit\/writer|\.\.\/audit\/writer/.test(text));
  const kinds = new Set<string>(AUDIT_KINDS);
  const call = /\b(recordAudit|recordAuditRows|insertAuditRows|insertCaselessAuditRow|AuditRow|AuditInput)\b/g;
  for (const { text } of writers) {
    for (const site of text.matchAll(call)) {
      // An actor written out in place carries a kind of its own ("user"); it is not the event's.
      const window = text.slice(site.index, site.index + 500).replace(/actor: \{[^}]*\}/g, "");
      const found = /\bkind: ([^,\n]+)/.exec(window);
      if (!found) continue;
      const expression = found[1] as string;
      const named = /^([A-Z_]+)\b/.exec(expression)?.[1];
      const constant = named ? new RegExp(`${named} = ([^;]+);`).exec(text)?.[1] : undefined;
      const imported = named ? LIB.map((s) => new RegExp(`export const ${named} = ([^;]+);`).exec(s.text)?.[1]) : [];
      for (const source of [expression, constant ?? "", ...imported.map((i) => i ?? "")]) {
        for (const kind of literals(source)) kinds.add(kind);
      }
    }
  }
  return kinds;
}

describe("every code a person reads has words", () => {
  it("stages and states", () => {
    expect(missing(STAGES, (stage) => Object.hasOwn(STAGE_LABEL, stage))).toEqual([]);
    expect(missing(CASE_STATES, (state) => Object.hasOwn(STATE_LABEL, state))).toEqual([]);
  });

  it("a case's outcome, as each service that ends an episode writes it", () => {
    const outcomes = new Set([
      ...all(/extra: \{[^}]*\boutcome: "([a-z_]+)"/g),
      ...all(/type: "accept_[a-z_]+",\s*outcome: "([a-z_]+)"/g),
      ...all(/caseOutcome = [^;]*"([a-z_]+)"/g),
      ...all(/set: Prisma\.sql`[^`]*\boutcome = '([a-z_]+)'/g),
    ]);
    expect([...outcomes].sort()).toEqual(
      ["delivered", "failure_accepted", "outputs_lost", "recovered", "replacement_authorized"].sort(),
    );
    expect(missing(outcomes, known(CASE_OUTCOME_WORDS))).toEqual([]);
  });

  it("a provider observation: each normalised job status, the worker's own, and the look for an original", () => {
    const statuses = /export type JobStatus =([\s\S]*?)export type JobKind/.exec(
      readFileSync("lib/domain/job-status.ts", "utf8"),
    )?.[1];
    const kinds = new Set([
      ...[...(statuses ?? "").matchAll(/kind: "([a-z_]+)"/g)].map((m) => m[1] as string),
      ...all(/INSERT INTO provider_observations[^`]*?'([a-z_]+)'/g),
      FRESH_CHECK_KIND,
    ]);
    expect(kinds).toContain("not_found");
    expect(kinds).toContain("outputs_unavailable");
    expect(missing(kinds, known(OBSERVATION_WORDS))).toEqual([]);
  });

  it("an audit event, for every kind the code hands the audit writer", () => {
    const kinds = auditKinds();
    expect(kinds).toContain("hold_written_off");
    expect(kinds).toContain("evidence_exported");
    expect(kinds).toContain("user_deactivated");
    expect(missing(kinds, hasWordsFor)).toEqual([]);
  });

  it("a permission", () => {
    expect(missing(PERMISSIONS, known(PERMISSION_WORDS))).toEqual([]);
    for (const words of Object.values(PERMISSION_WORDS)) expect(words).not.toMatch(/_|:/);
  });
});
