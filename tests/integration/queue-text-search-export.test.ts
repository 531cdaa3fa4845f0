import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addNote } from "@/lib/services/case/add-note";
import { countCases } from "@/lib/services/case/count-cases";
import { exportQueueCsv, QUEUE_EXPORTED } from "@/lib/services/case/export-queue-csv";
import { listCases } from "@/lib/services/case/list-cases";
import { parkCase } from "@/lib/services/case/park-case";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Text search (a case's evidence summary, which carries the error, and its notes) and the queue's
// CSV export, within the producers a person may see (decision 063).
const { db } = openTestDb();
const tag = () => randomBytes(3).toString("hex");
/** The file's rows by its header (these rows hold no comma or quote). */
const csvRows = (body: string) => {
  const [header = [], ...lines] = body
    .trim()
    .split("\n")
    .map((line) => line.split(","));
  return lines.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i] ?? ""])));
};
const evidence = (summary: string) => ({ summary, observedAt: "2026-11-29T10:00:00Z", source: "shop-app" });

describe("queue text search", () => {
  it("finds a case by a word of its error or of a note, not another producer's, beside the ID search", async () => {
    const t = tag();
    const operator = await makeUser(db, ["operator"]);
    const shopA = `text-a-${t}`;
    const shopB = `text-b-${t}`;
    const scoped = { ...operator, producers: [shopA] };
    const byError = await parkCase(
      db,
      producer(shopA),
      parkInput("polling", { evidence: evidence(`Upstream said GATEWAY-${t} refused the poll`) }),
    );
    const byNote = await parkCase(db, producer(shopA), parkInput("delivery"));
    await addNote(db, operator, byNote.caseId, { text: `Customer calls this the pelican-${t} order` });
    const theirs = await parkCase(
      db,
      producer(shopB),
      parkInput("polling", { evidence: evidence(`gateway-${t} again, and pelican-${t} too`) }),
    );
    const ids = async (user: typeof operator, query: Record<string, unknown>) =>
      (await listCases(db, user, listCasesSchema.parse({ limit: 200, ...query }))).items.map((c) => c.id).sort();

    expect(await ids(operator, { text: `gateway-${t}` })).toEqual([byError.caseId, theirs.caseId].sort());
    expect(await ids(scoped, { text: `gateway-${t}` })).toEqual([byError.caseId]);
    expect(await ids(scoped, { text: `PELICAN-${t}` })).toEqual([byNote.caseId]);
    expect(await ids(scoped, { text: `no-such-word-${t}` })).toEqual([]);
    // The count says what the list shows, and the ID search narrows it further.
    expect(await countCases(db, scoped, listCasesSchema.parse({ text: `gateway-${t}` }))).toEqual({
      count: 1,
      more: false,
    });
    const operationId = (await db.case.findUniqueOrThrow({ where: { id: byError.caseId } })).operationId;
    expect(await ids(operator, { text: `gateway-${t}`, q: operationId })).toEqual([byError.caseId]);
    expect(await ids(operator, { text: `pelican-${t}`, q: operationId })).toEqual([]);
    // Too short to search is refused by the schema, as the queue's URL reads it.
    expect(listCasesSchema.safeParse({ text: "ab" }).success).toBe(false);
  });
});

describe("queue CSV export", () => {
  it("writes the view in its order, within the reader's producers, with operation IDs and amounts, audited", async () => {
    const t = tag();
    const shopA = `csv-a-${t}`;
    const operator = { ...(await makeUser(db, ["operator"])), producers: [shopA] };
    const amounts = [2_500_000, 100_000, 1_234_567];
    for (const amountMicros of amounts) {
      const input = parkInput("polling", { operationId: `csv-${t}-${amountMicros}` });
      await parkCase(db, producer(shopA), { ...input, hold: { ...input.hold, amountMicros } });
    }
    await parkCase(db, producer(`csv-b-${t}`), parkInput("polling", { operationId: `csv-${t}-theirs` }));

    const file = await exportQueueCsv(db, operator, listCasesSchema.parse({ q: `csv-${t}`, sort: "amount" }));
    const rows = csvRows(file.body);
    expect(rows.map((r) => r.operation_id)).toEqual([`csv-${t}-2500000`, `csv-${t}-1234567`, `csv-${t}-100000`]);
    expect(rows[1]).toMatchObject({
      producer: shopA,
      held_micros: "1234567",
      held_amount: "1.234567",
      currency: "USD",
    });
    expect(file.body).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(file).toMatchObject({ rowCount: 3, truncated: false });

    const audit = await db.auditEvent.findFirstOrThrow({
      where: { kind: QUEUE_EXPORTED, actorId: operator.userId },
      orderBy: { id: "desc" },
    });
    expect(audit.evidence).toMatchObject({ rows: 3, truncated: false, view: { q: `csv-${t}`, sort: "amount" } });
  });
});
