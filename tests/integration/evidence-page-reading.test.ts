import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as caseEvidenceRoute from "@/app/api/v1/cases/[id]/evidence/route";
import { env } from "@/lib/env";
import { verifyEvidenceBytes } from "@/lib/evidence/packet-signature";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { EVIDENCE_EXPORTED } from "@/lib/services/evidence/export-evidence";
import { previewCaseEvidence, previewFilterEvidence } from "@/lib/services/evidence/preview-evidence";
import { makeUser, parkInput, producer } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 057: looking at a printable evidence page is not an export. Six looks at one case used
// to leave six `evidence_exported` rows; now the page writes nothing and the download (the API
// route) is the one audited export.
const { db } = openTestDb();
const shop = producer(`reading-shop-${Date.now().toString(36)}`);
const exportsOf = (caseId: string) => db.auditEvent.count({ where: { caseId, kind: EVIDENCE_EXPORTED } });
const PAGES = ["app/(console)/cases/[id]/evidence/page.tsx", "app/(console)/queue/evidence/page.tsx"];

describe("the printable evidence pages", () => {
  it("read a case's packet as often as they are shown, writing nothing; the download is the one export", async () => {
    const { caseId } = await parkCase(db, shop, parkInput("polling"));
    const reviewer = await makeUser(db, ["reviewer"]);
    const before = await tableCounts(db);
    for (let look = 0; look < 6; look++) {
      const reading = await previewCaseEvidence(db, reviewer, caseId, env());
      expect(reading.cases.map((c) => c.case.id)).toEqual([caseId]);
      expect(reading.signer.keyId).toMatch(/^ed25519:/);
    }
    const filtered = await previewFilterEvidence(db, reviewer, { producer: shop.name }, env());
    expect(filtered.cases.map((c) => c.case.id)).toEqual([caseId]);
    expect(await tableCounts(db)).toEqual(before);
    expect(await exportsOf(caseId)).toBe(0);

    const { secret } = await createAccessToken(db, reviewer, { kind: "personal", name: "download" });
    const download = await caseEvidenceRoute.GET(
      new Request("http://localhost/api/v1/cases/x/evidence", { headers: { authorization: `Bearer ${secret}` } }),
      { params: Promise.resolve({ id: caseId }) },
    );
    expect(download.status).toBe(200);
    const verified = verifyEvidenceBytes(new Uint8Array(await download.arrayBuffer()));
    expect(verified.valid && verified.keyId).toBe(
      (await previewCaseEvidence(db, reviewer, caseId, env())).signer.keyId,
    );
    expect(await exportsOf(caseId)).toBe(1);
  });

  it("refuse as the export does: an operator is forbidden, another producer's case is not found", async () => {
    const { caseId } = await parkCase(db, shop, parkInput("polling"));
    await expect(previewCaseEvidence(db, await makeUser(db, ["operator"]), caseId, env())).rejects.toMatchObject({
      code: "forbidden",
    });
    const elsewhere = { ...(await makeUser(db, ["reviewer"])), producers: ["some-other-shop"] };
    await expect(previewCaseEvidence(db, elsewhere, caseId, env())).rejects.toMatchObject({ code: "not_found" });
  });

  it("issue no packet themselves: their download link is the export route", () => {
    for (const page of PAGES) {
      const source = readFileSync(path.join(process.cwd(), page), "utf8");
      expect(source, page).not.toMatch(/\bexport(Case|Filter)Evidence\(/);
      expect(source, page).toMatch(/href=\{`\/api\/v1\/cases\//);
    }
  });
});
