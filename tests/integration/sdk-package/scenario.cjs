"use strict";
// A producer in a project of its own, using the installed package against the running app
// (tests/integration/sdk-package.test.ts runs it under each Node version, as ESM and as CommonJS).
// It prints one JSON line of what it saw and must then exit by itself: nothing the SDK leaves
// behind (timers, a create that never answers, idle connections) may keep the process alive.

/** @param {typeof import("@video-job-recovery/producer-sdk")} sdk */
exports.run = async function run(sdk, moduleFile) {
  const env = process.env;
  const vector = JSON.parse(env.VECTOR ?? "{}");
  const recovery = sdk.createRecoveryClient({ baseUrl: env.RECOVERY_URL ?? "", apiKey: env.RECOVERY_KEY ?? "" });
  const op = (name) => `${env.RUN_ID}-${name}`;
  const order = (name) => ({
    operationId: op(name),
    attemptId: `${op(name)}-a1`,
    provider: "replicate",
    model: "minimax/video-01",
    requestFingerprint: sdk.requestFingerprint({ prompt: name, duration: 5 }),
    hold: { holdId: `hold-${op(name)}`, amountMicros: 500_000, currency: "USD" },
  });
  const out = { node: process.versions.node, moduleFile };
  out.fingerprintMatches = sdk.requestFingerprint(vector.input) === vector.fingerprint;

  const accepted = await recovery.submit(order("ok"), async ({ webhookUrl, signal }) => {
    out.createContext = { webhookUrl: typeof webhookUrl, signal: signal instanceof AbortSignal };
    return { providerJobId: `job-${op("ok")}` };
  });
  out.accepted = { outcome: accepted.outcome, reported: accepted.reported };

  const late = await recovery.submit(
    order("late"),
    ({ signal }) =>
      new Promise((resolve) =>
        signal.addEventListener("abort", () => setImmediate(() => resolve({ providerJobId: `job-${op("late")}` }))),
      ),
    { createTimeoutMs: 50 },
  );
  out.late = { outcome: late.outcome, error: late.error?.name, lateReport: await late.lateReport };
  out.lookup = await recovery.lookup(op("late"));

  // A create that ignores its signal and never answers: submit still ends, and so must the process.
  const hung = await recovery.submit(order("hung"), () => new Promise(() => {}), { createTimeoutMs: 50 });
  out.hung = { outcome: hung.outcome, reported: hung.reported };

  try {
    await recovery.permit({ ...order("typo"), provider: "Replicate" });
    out.typo = "accepted";
  } catch (error) {
    out.typo = {
      apiError: error instanceof sdk.RecoveryApiError,
      status: error.status,
      code: error.code,
      issues: error.issues,
    };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
};
