// A separate OS process that races its siblings on the same database. It connects, prints READY,
// then runs one task per line read from stdin and answers each with one RESULT line.
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { createPrismaClient } from "@/lib/db/client";
import type { Principal } from "@/lib/domain/principal";
import { approveCase } from "@/lib/services/case/approve-case";
import { claimActions } from "@/lib/services/claim/claim-actions";
import type { RaceResult, RaceTask } from "./race-pool";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const db = createPrismaClient(url, 2);

async function run(task: RaceTask): Promise<RaceResult> {
  if (task.mode === "claim") {
    const actor: Principal = { kind: "worker", tokenId: randomUUID(), name: "race-worker", workerId: task.workerId };
    const actionIds: string[] = [];
    let rounds = 0;
    for (;;) {
      rounds += 1;
      const claimed = await claimActions(db, actor, { max: task.max });
      if (claimed.length === 0) break;
      for (const claim of claimed) actionIds.push(claim.actionId);
    }
    return { mode: "claim", pid: process.pid, actionIds, rounds };
  }
  const result = await approveCase(db, task.reviewer, task.caseId, {
    action: task.action,
    evidence: `approved by process ${process.pid}`,
  });
  return { mode: "approve", pid: process.pid, ...result };
}

async function answer(task: RaceTask): Promise<RaceResult> {
  try {
    return await run(task);
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown };
    return { mode: "error", pid: process.pid, code: String(e.code ?? "unknown"), message: String(e.message ?? error) };
  }
}

await db.$queryRaw`SELECT 1`;
process.stdout.write("READY\n");
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "") continue;
  const result = await answer(JSON.parse(line) as RaceTask);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}
await db.$disconnect();
