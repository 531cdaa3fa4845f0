import { afterEach, describe, expect, it, vi } from "vitest";
import type { UserActor } from "@/lib/services/access/actor";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { makeUser, parkInput, producer } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// The console's two actions on a charge no operation explains (decision 074) are thin adapters over
// the services: the session's person (stood in for here), zod, then the service's own refusals.
const session = vi.hoisted(() => ({ actor: null as UserActor | null }));
vi.mock("@/lib/auth/session", () => ({ currentUser: async () => session.actor }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { attachUnexplainedChargeAction, markChargeKnownOutsideAction } = await import("@/lib/actions/usage-actions");
const { parkCase } = await import("@/lib/services/case/park-case");

const { db } = openTestDb();
afterEach(() => {
  session.actor = null;
});

async function unexplainedJob() {
  const job = `action-${Math.random().toString(36).slice(2)}`;
  await importUsageFile(db, await makeUser(db, ["finance"]), {
    provider: "replicate",
    format: "generic",
    fileName: "actions.csv",
    content: `provider_job_id,amount,currency,time\n${job},0.30,XUJ,2026-12-01T10:00:00Z\n`,
  });
  return job;
}

const snapshot = async () => ({
  lines: await db.usageLine.findMany({ orderBy: { id: "asc" } }),
  entries: await db.ledgerEntry.count(),
  audits: await db.auditEvent.count(),
  cases: await db.case.findMany({ select: { id: true, version: true }, orderBy: { id: "asc" } }),
});

describe("the charge actions", () => {
  it("answer bad input with the field named and a wrong role or a scoped person with forbidden, changing nothing", async () => {
    const job = await unexplainedJob();
    const { caseId } = await parkCase(db, producer("actions-shop"), parkInput("submission_uncertain"));
    const before = await snapshot();

    session.actor = await makeUser(db, ["finance"]);
    const noReason = await markChargeKnownOutsideAction({ provider: "replicate", providerJobId: job, reason: "  " });
    expect(noReason).toMatchObject({ ok: false, error: { code: "invalid_request", issues: [{ path: "reason" }] } });
    const notUuid = await attachUnexplainedChargeAction({
      provider: "replicate",
      providerJobId: job,
      caseId: "not-a-case",
      evidence: "ours",
    });
    expect(notUuid).toMatchObject({ ok: false, error: { code: "invalid_request" } });

    session.actor = await makeUser(db, ["reviewer"]);
    expect(
      await markChargeKnownOutsideAction({ provider: "replicate", providerJobId: job, reason: "a script" }),
    ).toMatchObject({ ok: false, error: { code: "forbidden" } });
    session.actor = { ...(await makeUser(db, ["finance"])), producers: ["actions-shop"] };
    expect(
      await attachUnexplainedChargeAction({
        provider: "replicate",
        providerJobId: job,
        caseId: String(caseId),
        evidence: "ours",
      }),
    ).toMatchObject({ ok: false, error: { code: "forbidden" } });
    session.actor = null;
    expect(
      await markChargeKnownOutsideAction({ provider: "replicate", providerJobId: job, reason: "a script" }),
    ).toMatchObject({ ok: false, error: { code: "unauthenticated" } });
    expect(await snapshot()).toEqual(before);
  });

  it("explains a charge for finance, and refuses the second time as already explained", async () => {
    const job = await unexplainedJob();
    session.actor = await makeUser(db, ["finance"]);
    const input = { provider: "replicate", providerJobId: job, reason: "a duplicate our client's retry paid for" };
    expect(await markChargeKnownOutsideAction(input)).toMatchObject({
      ok: true,
      data: { lines: 1, booked: [{ currency: "XUJ", micros: "300000" }] },
    });
    expect(await markChargeKnownOutsideAction(input)).toMatchObject({ ok: false, error: { code: "conflict" } });
  });
});
