import { createRequire } from "node:module";
import * as sdk from "@video-job-recovery/producer-sdk";

// The scenario as an ES module imports it: `import` resolves the package's ESM build.
const { run } = createRequire(import.meta.url)("./scenario.cjs");
await run(sdk, import.meta.resolve("@video-job-recovery/producer-sdk"));
