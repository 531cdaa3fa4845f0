import type { JobPage } from "./module";
import { providerModule } from "./registry";

export type { JobPage } from "./module";

/**
 * Where a person can look at a provider job in the provider's own console, or why there is no page
 * to link: each provider's module says (its `jobPage`, with the reason in its folder's index.ts). A
 * simulator's jobs exist only on this machine; a link to the real provider would open a page about
 * somebody else's job, or none. Pure, so the console and its tests can call it.
 */
export function providerJobPage(job: { provider: string; providerJobId: string; mode: "simulator" | "live" }): JobPage {
  if (job.mode !== "live") return { url: null, why: "simulated job: no provider page" };
  const provider = providerModule(job.provider);
  return provider ? provider.jobPage(job.providerJobId) : { url: null, why: `no known page at ${job.provider}` };
}
