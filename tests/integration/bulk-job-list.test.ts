import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { UserActor } from "@/lib/services/access/actor";
import { BULK_JOBS_PAGE, listBulkJobs } from "@/lib/services/bulk-job/list-bulk-jobs";
import { startCaseBulkJob } from "@/lib/services/bulk-job/start-case-bulk-job";
import { dryRunBulk } from "@/lib/services/case/bulk-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The bulk jobs page (decision 069): a person's own jobs, an admin's everyone's (unless limited to
// some producers), newest first, paged on (started, id) with no job twice and none left out.
process.env.WORKER_LOG = "0";
const { db } = openTestDb();
const shop = producer("bulk-list-shop");

async function startJob(user: UserActor) {
  const model = `list-${randomUUID().slice(0, 8)}`;
  await parkCase(db, shop, parkInput("polling", { model }));
  const action = { verb: "escalate" as const, evidence: "provider incident" };
  const target = { kind: "filter" as const, filter: { model } };
  const preview = await dryRunBulk(db, user, { mode: "dry_run", action, target });
  return (await startCaseBulkJob(db, user, { mode: "execute", action, target, token: preview.token, pace: "steady" }))
    .jobId;
}

async function walk(user: UserActor) {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await listBulkJobs(db, user, cursor ? { cursor } : {});
    ids.push(...page.items.map((job) => job.id));
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return ids;
}

describe("the bulk jobs list", () => {
  it("shows a person their own jobs, an admin everyone's, newest first, across pages", async () => {
    const mine = await makeUser(db, ["reviewer"]);
    const theirs = await makeUser(db, ["reviewer"]);
    const admin = await makeUser(db, ["admin", "reviewer"]);
    const scopedAdmin: UserActor = { ...(await makeUser(db, ["admin"])), producers: ["bulk-list-shop"] };
    const myJob = await startJob(mine);
    const theirJob = await startJob(theirs);
    // More than a page of older jobs, many started at the same moment, so the id breaks the ties.
    const at = new Date(Date.now() - 3_600_000);
    const older: string[] = [];
    for (let i = 0; i < BULK_JOBS_PAGE + 4; i++) {
      const job = await db.bulkJob.create({
        data: {
          userId: mine.userId,
          previewId: randomUUID(),
          kind: "cases",
          verb: "note",
          action: { verb: "note", text: "checked" },
          state: "finished",
          planned: 2,
          done: 1,
          skipped: 1,
          previewSkipped: [],
          batchSize: 25,
          pauseMs: 1000,
          createdAt: new Date(at.getTime() - (i % 3) * 1000),
          finishedAt: at,
        },
      });
      older.push(job.id);
    }

    const seen = await walk(mine);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen[0]).toBe(myJob);
    expect(seen).not.toContain(theirJob);
    expect([...seen].sort()).toEqual([myJob, ...older].sort());
    const rows = await db.bulkJob.findMany({ where: { id: { in: seen } } });
    const key = (id: string) => {
      const row = rows.find((r) => r.id === id);
      return `${row?.createdAt.toISOString()}|${id}`;
    };
    expect(seen).toEqual([...seen].sort((a, b) => key(b).localeCompare(key(a))));

    const first = await listBulkJobs(db, mine, {});
    expect(first.everyone).toBe(false);
    expect(first.items[0]).toMatchObject({ id: myJob, verb: "escalate", state: "running", planned: 1, mine: true });

    expect(await walk(theirs)).toEqual([theirJob]);
    const everyone = await walk(admin);
    expect(everyone).toEqual(expect.arrayContaining([myJob, theirJob, ...older]));
    expect((await listBulkJobs(db, admin, {})).everyone).toBe(true);
    // An admin limited to some producers sees only their own (none here).
    expect(await walk(scopedAdmin)).toEqual([]);
  });

  it("refuses a cursor it did not issue with invalid_request", async () => {
    const user = await makeUser(db, ["reviewer"]);
    for (const cursor of ["%%%", Buffer.from(JSON.stringify({ at: "soon", id: randomUUID() })).toString("base64url")])
      await expect(listBulkJobs(db, user, { cursor })).rejects.toMatchObject({ code: "invalid_request" });
  });
});
