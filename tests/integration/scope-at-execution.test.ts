import { randomUUID } from "node:crypto";
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  acceptFailureAction,
  acceptOutputsLostAction,
  addNoteAction,
  approveAction,
  assignAction,
  reconcileAction,
  requestReplacementAction,
  resendNotificationsAction,
  reviewAction,
} from "@/lib/actions/case-actions";
import {
  acknowledgeLateChargeAction,
  authorizeReplacementAction,
  declineReplacementAction,
  releaseHoldAction,
  setSpendLimitAction,
  settleHoldAction,
  writeOffHoldAction,
} from "@/lib/actions/finance-actions";
import { dryRunBulkAction, executeBulkAction } from "@/lib/actions/queue-actions";
import type { ActionResult } from "@/lib/actions/safe-action";
import { confirmSuggestionAction } from "@/lib/actions/suggestion-actions";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import { authOptions } from "@/lib/auth/options";
import { currentUser } from "@/lib/auth/session";
import type { Stage } from "@/lib/domain/stages";
import { decide } from "@/lib/domain/transitions";
import type { UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { setUserProducers } from "@/lib/services/admin/set-user-producers";
import { setUserRoles } from "@/lib/services/admin/set-user-roles";
import { parkCase } from "@/lib/services/case/park-case";
import { applyCaseChange, snapshotOf } from "@/lib/services/case/writer/change";
import { chargeAfterRelease } from "@/lib/services/hold/charge-after-release";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { generateSigningSecret } from "@/lib/services/notification/notification-endpoint-signature";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { setUserProducersSchema, setUserRolesSchema } from "@/lib/validation/admin";
import { parseInput } from "@/lib/validation/parse-input";
import { makeUser, parkInput, producer, registerProducers } from "./fixtures";
import { callRoute } from "./helpers/call-route";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// Decision 054: scope and roles are the ones loaded for the request that writes, never the ones a
// dry run, a page or a cookie saw. A person working for shops A and B is signed in (a session
// cookie for the console's server actions, a personal token for the API); then an admin narrows
// them to shop A, or takes their working roles away. Every write the console and the API offer on
// a shop-B case (every bulk verb, its dry run made before the change, and every single-case action)
// must then refuse and change nothing. A control run with no change shows each request would have
// worked, so no refusal below is for another reason.

const SECRET = vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "scope-at-execution-test-secret-0123456789";
  return process.env.AUTH_SECRET;
});
// The browser's cookie for the request being simulated (as in revocable-sessions.test.ts): from
// here on it is next-auth's own code, the session callback and the one session check.
const browser = vi.hoisted(() => ({ cookie: "" }));
vi.mock("next-auth", async (importOriginal) => {
  const real = await importOriginal<typeof import("next-auth")>();
  const res = { getHeader: () => undefined, setHeader: () => undefined, setCookie: () => undefined };
  return {
    ...real,
    getServerSession: (options: Parameters<typeof real.getServerSession>[0]) =>
      real.getServerSession(
        { headers: {}, cookies: browser.cookie ? { "next-auth.session-token": browser.cookie } : {} } as never,
        res as never,
        options as never,
      ),
  };
});
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const { db } = openTestDb();
const run = Date.now().toString(36);
const shopA = producer(`scope-exec-a-${run}`);
const shopB = producer(`scope-exec-b-${run}`);

let admin: UserActor;
let colleague: UserActor;
let otherFinance: UserActor;

beforeAll(async () => {
  admin = await makeUser(db, ["admin"]);
  colleague = await makeUser(db, ["operator", "reviewer"]);
  otherFinance = await makeUser(db, ["finance"]);
  await registerProducers(db, shopA, shopB);
  // Shop B's endpoint at a literal private address: a resend is refused before any connection.
  await db.notificationEndpoint.create({
    data: { producer: shopB.name, url: "https://10.255.255.1/scope", signingSecret: generateSigningSecret() },
  });
});

/** A person who works for shops A and B, signed in once: the cookie and the token are kept throughout. */
type Person = { user: UserActor; cookie: string; token: string };

async function signedInPerson(): Promise<Person> {
  const user = await makeUser(db, ["operator", "reviewer", "finance"]);
  const producers = [shopA.name, shopB.name].sort();
  await setUserProducers(db, admin, parseInput(setUserProducersSchema, { userId: user.userId, producers }));
  const jwt = authOptions().callbacks?.jwt;
  if (!jwt) throw new Error("no jwt callback");
  const claims = await jwt({
    token: {},
    user: { id: user.userId, email: user.email, name: user.name },
    account: { provider: "credentials", type: "credentials", providerAccountId: user.userId },
  } as never);
  const cookie = await encode({ secret: SECRET, token: claims });
  const { secret } = await createAccessToken(db, user, { kind: "personal", name: "scope-exec" });
  return { user, cookie, token: secret };
}

// ---------------------------------------------------------------------------------------------
// The two doors: the console's server actions (session cookie) and the API (personal token).
// ---------------------------------------------------------------------------------------------

type Door = "console" | "api";
type Answer = { ok: true; data: Record<string, unknown> } | { ok: false; code: string };
type ServerAction = (raw: unknown) => Promise<ActionResult<unknown>>;
/** One request, as each door spells it. */
type Request = {
  action: ServerAction;
  raw: unknown;
  route: RouteKey;
  params?: Record<string, string>;
  body?: unknown;
};

const handlerOf = (key: RouteKey) => {
  const found = API_ROUTES.find((entry) => routeKey(entry) === key);
  if (!found) throw new Error(`${key} is not in the route table`);
  return found.handle;
};

async function send(door: Door, person: Person, request: Request): Promise<Answer> {
  if (door === "api") {
    const { status, json } = await callRoute(handlerOf(request.route), {
      token: person.token,
      method: request.route.split(" ")[0] ?? "POST",
      ...(request.params ? { params: request.params } : {}),
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    return status < 300 ? { ok: true, data: json } : { ok: false, code: json.error?.code ?? String(status) };
  }
  browser.cookie = person.cookie;
  try {
    const result = await request.action(request.raw);
    return result.ok
      ? { ok: true, data: result.data as Record<string, unknown> }
      : { ok: false, code: result.error.code };
  } finally {
    browser.cookie = "";
  }
}

// ---------------------------------------------------------------------------------------------
// Shop B's targets.
// ---------------------------------------------------------------------------------------------

async function parked(stage: Stage) {
  const { caseId } = await parkCase(db, shopB, parkInput(stage));
  return String(caseId);
}
const holdOf = async (caseId: string) => (await db.hold.findFirstOrThrow({ where: { caseId } })).id;

async function outputsLost() {
  const caseId = await parked("delivery");
  await db.case.update({ where: { id: caseId }, data: { outputsUnavailableAt: new Date() } });
  return caseId;
}

async function lateCharged() {
  const caseId = await parked("polling");
  const holdRef = await holdOf(caseId);
  await resolveHold(db, otherFinance, holdRef, { kind: "write_off", note: "support lost it", evidence: "ticket 9" });
  await chargeAfterRelease(db, shopB, { holdRef, how: "the scope test's fixture" });
  return { caseId, holdRef };
}

async function notTold() {
  const caseId = await parked("delivery");
  await db.notificationOutbox.create({
    data: {
      id: `msg_scope_${randomUUID()}`,
      producer: shopB.name,
      caseId,
      eventType: "case.delivered",
      payload: { type: "case.delivered" },
      attempts: 12,
      giveUpAt: new Date(),
      lastStatus: 503,
    },
  });
  return caseId;
}

async function pendingReplacement() {
  const caseId = await parked("generation_failed");
  const { requestId } = await requestReplacement(db, colleague, caseId, { evidence: "the model returned an error" });
  return { caseId, requestId };
}

async function suggested() {
  const caseId = await parked("submission_uncertain");
  const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const suggestion = await db.reconciliationSuggestion.create({
    data: {
      caseId,
      episode: row.episode,
      providerJobId: `job-suggested-${randomUUID()}`,
      confidence: 90,
      matched: ["model", "time"],
      providerStatus: "succeeded",
      jobCreatedAt: new Date(),
    },
  });
  return { caseId, suggestionId: suggestion.id };
}

// ---------------------------------------------------------------------------------------------
// The table: every write the console's actions and the API's routes offer on a producer's case.
// ---------------------------------------------------------------------------------------------

/** A prepared request on one shop-B case; `dryRun` (bulk only) runs the dry run through the same door. */
type Prepared = { caseId: string; request: Request; bulk?: boolean };
type Row = {
  name: string;
  prepare: (dryRun: (body: Record<string, unknown>) => Promise<string>) => Promise<Prepared>;
  /** What a narrowed scope answers, when it is not `not_found` (a producer's limit is no case). */
  narrowed?: string;
};

const single = (
  name: string,
  target: () => Promise<string>,
  action: ServerAction,
  route: RouteKey,
  input: (caseId: string) => { raw: unknown; body?: unknown },
): Row => ({
  name,
  prepare: async () => {
    const caseId = await target();
    const { raw, body } = input(caseId);
    return { caseId, request: { action, raw, route, params: { id: caseId }, body } };
  },
});

const caseInput =
  (input: Record<string, unknown>) =>
  (caseId: string): { raw: unknown; body: unknown } => ({ raw: { caseId, input }, body: input });

const onHold = (
  name: string,
  target: () => Promise<{ caseId: string; holdRef: string }>,
  action: ServerAction,
  route: RouteKey,
  raw: Record<string, unknown>,
  body: Record<string, unknown>,
): Row => ({
  name,
  prepare: async () => {
    const { caseId, holdRef } = await target();
    return { caseId, request: { action, raw: { holdRef, ...raw }, route, params: { id: holdRef }, body } };
  },
});

const heldHold = (stage: Stage) => async () => {
  const caseId = await parked(stage);
  return { caseId, holdRef: await holdOf(caseId) };
};

const onRequest = (name: string, action: ServerAction, route: RouteKey): Row => ({
  name,
  prepare: async () => {
    const { caseId, requestId } = await pendingReplacement();
    const evidence = "budget looked at";
    return {
      caseId,
      request: { action, raw: { requestId, evidence }, route, params: { id: requestId }, body: { evidence } },
    };
  },
});

/** A bulk verb on one shop-B case: its dry run is made while the person still works for shop B. */
const bulk = (verb: string, stage: Stage, extra: () => Record<string, unknown>): Row => ({
  name: `bulk ${verb}`,
  prepare: async (dryRun) => {
    const caseId = await parked(stage);
    const common = { action: { verb, ...extra() }, target: { kind: "ids", caseIds: [caseId] } };
    const token = await dryRun({ mode: "dry_run", ...common });
    const body = { mode: "execute", ...common, token };
    return {
      caseId,
      bulk: true,
      request: { action: executeBulkAction, raw: body, route: "POST /api/v1/cases/bulk", body },
    };
  },
});

const EVIDENCE = { evidence: "looked at the provider's dashboard" };

const ROWS: Row[] = [
  bulk("approve", "polling", () => EVIDENCE),
  bulk("reject", "polling", () => EVIDENCE),
  bulk("escalate", "polling", () => EVIDENCE),
  bulk("accept_failure", "generation_failed", () => EVIDENCE),
  bulk("assign", "polling", () => ({ assigneeId: colleague.userId })),
  bulk("note", "polling", () => ({ text: "looked at it" })),
  single(
    "approve",
    () => parked("polling"),
    approveAction,
    "POST /api/v1/cases/{id}/approve",
    caseInput({ action: "resume_poll", ...EVIDENCE }),
  ),
  single(
    "reject",
    () => parked("polling"),
    reviewAction,
    "POST /api/v1/cases/{id}/review",
    caseInput({ verdict: "reject", ...EVIDENCE }),
  ),
  single(
    "escalate",
    () => parked("polling"),
    reviewAction,
    "POST /api/v1/cases/{id}/review",
    caseInput({ verdict: "escalate", ...EVIDENCE }),
  ),
  single(
    "accept failure",
    () => parked("generation_failed"),
    acceptFailureAction,
    "POST /api/v1/cases/{id}/accept-failure",
    caseInput(EVIDENCE),
  ),
  single(
    "accept outputs lost",
    outputsLost,
    acceptOutputsLostAction,
    "POST /api/v1/cases/{id}/accept-outputs-lost",
    caseInput(EVIDENCE),
  ),
  single(
    "reconcile: attach a job",
    () => parked("submission_uncertain"),
    reconcileAction,
    "POST /api/v1/cases/{id}/reconcile",
    (caseId) => caseInput({ verdict: "attach", providerJobId: `job-found-${caseId}`, ...EVIDENCE })(caseId),
  ),
  single(
    "reconcile: no job exists",
    () => parked("submission_uncertain"),
    reconcileAction,
    "POST /api/v1/cases/{id}/reconcile",
    caseInput({ verdict: "no_job", ...EVIDENCE }),
  ),
  {
    // The console's way to attach a suggested job; the API attaches through reconcile.
    name: "confirm a suggested job",
    prepare: async () => {
      const { caseId, suggestionId } = await suggested();
      const input = { suggestionId, ...EVIDENCE };
      const body = { verdict: "attach", providerJobId: `job-found-${caseId}`, ...EVIDENCE };
      return {
        caseId,
        request: {
          action: confirmSuggestionAction,
          raw: { caseId, input },
          route: "POST /api/v1/cases/{id}/reconcile",
          params: { id: caseId },
          body,
        },
      };
    },
  },
  single(
    "note",
    () => parked("polling"),
    addNoteAction,
    "POST /api/v1/cases/{id}/notes",
    caseInput({ text: "looked at it" }),
  ),
  {
    name: "assign",
    prepare: async () => {
      const caseId = await parked("polling");
      const input = { assigneeId: colleague.userId };
      return {
        caseId,
        request: {
          action: assignAction,
          raw: { caseId, input },
          route: "POST /api/v1/cases/{id}/assign",
          params: { id: caseId },
          body: input,
        },
      };
    },
  },
  single(
    "request a replacement",
    () => parked("generation_failed"),
    requestReplacementAction,
    "POST /api/v1/cases/{id}/replacement-requests",
    caseInput({ evidence: "the generation failed for good" }),
  ),
  single(
    "resend the producer's notifications",
    notTold,
    resendNotificationsAction,
    "POST /api/v1/cases/{id}/notifications/resend",
    (caseId) => ({ raw: { caseId } }),
  ),
  onRequest("authorise a replacement", authorizeReplacementAction, "POST /api/v1/replacement-requests/{id}/authorize"),
  onRequest("decline a replacement", declineReplacementAction, "POST /api/v1/replacement-requests/{id}/decline"),
  onHold(
    "settle a hold",
    heldHold("polling"),
    settleHoldAction,
    "POST /api/v1/holds/{id}/settle",
    { chargeMicros: 40_000, note: "invoice line 14", evidence: "usage export" },
    { chargeMicros: 40_000, note: "invoice line 14", evidence: "usage export" },
  ),
  onHold(
    "release a hold",
    heldHold("generation_failed"),
    releaseHoldAction,
    "POST /api/v1/holds/{id}/release",
    { note: "no charge on the invoice", evidence: "usage export, 0 s" },
    { note: "no charge on the invoice", evidence: "usage export, 0 s" },
  ),
  onHold(
    "write off a hold",
    heldHold("polling"),
    writeOffHoldAction,
    "POST /api/v1/holds/{id}/write-off",
    { note: "the provider's support lost the job", evidence: "ticket 9" },
    { reason: "the provider's support lost the job", evidence: "ticket 9" },
  ),
  onHold(
    "acknowledge a late charge",
    lateCharged,
    acknowledgeLateChargeAction,
    "POST /api/v1/holds/{id}/late-charge/acknowledge",
    { note: "recovered from the customer" },
    { note: "recovered from the customer" },
  ),
  {
    // Not a case, but a shop's own setting: outside the scope it is refused as another shop's.
    name: "set the shop's spend limit",
    narrowed: "forbidden",
    prepare: async () => {
      const caseId = await parked("polling");
      const limit = { appliesTo: "sends", producer: shopB.name, currency: "SEK" };
      return {
        caseId,
        request: {
          action: setSpendLimitAction,
          raw: { ...limit, model: "", perHour: "900", perDay: "" },
          route: "PUT /api/v1/finance/spend-limits",
          body: { ...limit, perHourMicros: 900_000_000, perDayMicros: null },
        },
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------
// The changes, and what must hold after each.
// ---------------------------------------------------------------------------------------------

type Change = "none" | "scope narrowed" | "role lost";

async function apply(change: Change, person: Person) {
  const userId = person.user.userId;
  if (change === "scope narrowed") {
    await setUserProducers(db, admin, parseInput(setUserProducersSchema, { userId, producers: [shopA.name] }));
  }
  if (change === "role lost") {
    await setUserRoles(db, admin, parseInput(setUserRolesSchema, { userId, roles: ["viewer"] }));
  }
}

/** Everything a write could have changed: row counts, and the case's own rows as they stand. */
async function stateOf(caseId: string) {
  return {
    counts: await tableCounts(db),
    kase: await db.case.findUniqueOrThrow({ where: { id: caseId } }),
    holds: await db.hold.findMany({ where: { caseId }, orderBy: { id: "asc" } }),
    requests: await db.replacementRequest.findMany({ where: { caseId }, orderBy: { id: "asc" } }),
    outbox: await db.notificationOutbox.findMany({ where: { caseId }, orderBy: { id: "asc" } }),
    suggestions: await db.reconciliationSuggestion.findMany({ where: { caseId }, orderBy: { id: "asc" } }),
    limits: await db.spendLimit.findMany({ where: { producer: shopB.name }, orderBy: { id: "asc" } }),
  };
}

const DOORS: Door[] = ["console", "api"];
const CHANGES: Change[] = ["none", "scope narrowed", "role lost"];
const cells = ROWS.flatMap((row) =>
  DOORS.flatMap((door) => CHANGES.map((change) => [row.name, door, change, row] as const)),
);

describe("scope and roles at execution", () => {
  it.each(cells)("%s through the %s after %s", async (_name, door, change, row) => {
    const person = await signedInPerson();
    const dryRun = async (body: Record<string, unknown>) => {
      const dry = await send(door, person, {
        action: dryRunBulkAction,
        raw: body,
        route: "POST /api/v1/cases/bulk",
        body,
      });
      if (!dry.ok) throw new Error(`dry run refused: ${dry.code}`);
      expect(dry.data.willAct).toBe(1);
      return String(dry.data.token);
    };
    const { caseId, request, bulk: isBulk } = await row.prepare(dryRun);
    await apply(change, person);
    const before = await stateOf(caseId);
    const answer = await send(door, person, request);

    if (change === "none") {
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true });
      if (isBulk && answer.ok) expect(answer.data).toMatchObject({ applied: 1, skipped: [] });
      return;
    }
    if (change === "scope narrowed" && isBulk) {
      // The execution answers, but acts on nothing: the case is `not_found` for this person now.
      expect(answer).toEqual({
        ok: true,
        data: expect.objectContaining({
          applied: 0,
          appliedCaseIds: [],
          skipped: [{ caseId, operationId: "", code: "not_found", message: "No such case.", at: "execute" }],
        }),
      });
    } else if (change === "scope narrowed") {
      expect(answer).toEqual({ ok: false, code: row.narrowed ?? "not_found" });
    } else {
      // A role change ends the person's sessions (decision 016); a personal token lives on with
      // the roles the person has now.
      expect(answer).toEqual({ ok: false, code: door === "console" ? "unauthenticated" : "forbidden" });
    }
    expect(await stateOf(caseId)).toEqual(before);
  });

  it("the case writer itself changes no case outside the actor's scope, whoever read it", async () => {
    const caseId = await parked("polling");
    const row = await db.case.findUniqueOrThrow({ where: { id: caseId } });
    const decision = decide(snapshotOf(row), { type: "approve", action: "resume_poll", evidence: "x" });
    if (!decision.ok) throw decision.error;
    const narrowed = { ...colleague, producers: [shopA.name] };
    const before = await stateOf(caseId);
    await expect(
      applyCaseChange(db, { seen: { ...row, caseId }, command: "approve", decision, actor: narrowed, evidence: null }),
    ).rejects.toMatchObject({ code: "lost_race" });
    expect(await stateOf(caseId)).toEqual(before);
  });

  it("a narrowed scope reaches a session already signed in, from its next request", async () => {
    const person = await signedInPerson();
    const sessionScope = async () => {
      browser.cookie = person.cookie;
      try {
        return (await currentUser())?.producers;
      } finally {
        browser.cookie = "";
      }
    };
    expect(await sessionScope()).toEqual([shopA.name, shopB.name].sort());
    await apply("scope narrowed", person);
    // The same cookie, not signed in again: the session check reads the scope from the user's row.
    expect(await sessionScope()).toEqual([shopA.name]);
  });
});
