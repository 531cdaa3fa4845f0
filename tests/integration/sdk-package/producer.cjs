"use strict";
// The scenario as CommonJS requires it: `require` resolves the package's CommonJS build.
const sdk = require("@video-job-recovery/producer-sdk");
const { run } = require("./scenario.cjs");

run(sdk, require.resolve("@video-job-recovery/producer-sdk")).catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
