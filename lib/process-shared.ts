/**
 * State that must be one per process. The HTTP entry (server/main.ts) and Next.js's bundle each
 * load the modules, so module-level state would exist twice in one server; this keeps it on
 * globalThis under a registered symbol, shared by every copy.
 */
export function processShared<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`video-job-recovery.${name}`);
  store[key] ??= create();
  return store[key] as T;
}
