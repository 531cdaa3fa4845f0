import path from "node:path";

/** How every launcher starts the HTTP entry (`node` arguments): one process, TypeScript via tsx. */
export function serverNodeArgs(options: { dev?: boolean } = {}): string[] {
  return ["--import", "tsx", path.resolve("server/main.ts"), ...(options.dev ? ["--dev"] : [])];
}
