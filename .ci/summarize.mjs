// Adds up Vitest and Playwright JSON reports into the one line CI reads: "N passed, N failed".
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`missing report ${file}: counted as one failure`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  if (report.stats && "expected" in report.stats) {
    passed += report.stats.expected + report.stats.flaky;
    failed += report.stats.unexpected;
  } else {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    // A file that failed to load has no failed tests of its own but must still count.
    if (report.numFailedTests === 0) failed += report.numFailedTestSuites ?? 0;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
