import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { RouteHandler } from "@/lib/api/api-route";
import { API_ROUTES, type RouteKey, routeKey } from "@/lib/api/routes";
import type { Stage } from "@/lib/domain/stages";
import { env } from "@/lib/env";
import type { ProducerActor, UserActor } from "@/lib/services/access/actor";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { revokeAccessToken } from "@/lib/services/access/revoke-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { chargeAfterRelease } from "@/lib/services/hold/charge-after-release";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { generateSigningSecret } from "@/lib/services/notification/notification-endpoint-signature";
import { requestPermit } from "@/lib/services/permit/request-permit";
import { authorizeReplacement } from "@/lib/services/replacement/decide-replacement";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { assetStorageOf } from "@/lib/storage/asset-storage";
import { makeUser, outcomeInput, parkInput, permitInput, publishedAsset } from "./fixtures";
import { tableCounts } from "./helpers/table-counts";
import { openTestDb } from "./setup/test-db";

// A request without a bearer token on a user route falls back to the console's session cookie.
// Outside a real request there is no cookie store to read, so the session lookup is answered the
// way it is for a browser that sends no cookie: no session. Everything after it (the 401) is the
// real code path; the same cells are also exercised over real HTTP by tests/e2e/api-auth.spec.ts.
// Building the session options needs a signing secret, which the launcher provides in demo mode.
vi.hoisted(() => {
  process.env.AUTH_SECRET ??= "authorisation-matrix-test-secret-0123456789";
  // Delivered outputs are read from here (the outputs route): a folder of this test's own.
  process.env.ASSET_DIR = `${process.env.TMPDIR ?? "/tmp"}/authorization-matrix-${process.pid}`;
});
vi.mock("next-auth", async (importOriginal) => ({
  ...(await importOriginal<typeof import("next-auth")>()),
  getServerSession: async () => null,
}));

const { db } = openTestDb();

// ---------------------------------------------------------------------------------------------
// The matrix: every principal against every route. This table is what is asserted, and what
// docs/authorization-matrix.md is rendered from.
// ---------------------------------------------------------------------------------------------

const PRINCIPALS = [
  { key: "none", label: "none (no header)" },
  { key: "operator", label: "operator token" },
  { key: "reviewer", label: "reviewer token" },
  { key: "finance", label: "finance token" },
  { key: "admin", label: "admin token" },
  { key: "revokedToken", label: "revoked personal token" },
  { key: "expiredToken", label: "expired personal token" },
  { key: "producerKey", label: "producer API key" },
  { key: "revokedKey", label: "revoked API key" },
  { key: "workerToken", label: "worker token" },
  { key: "viewer", label: "viewer token" },
  { key: "scoped", label: "scoped person's token (operator, reviewer, finance; another producer)" },
  { key: "narrowed", label: "scope narrowed after a dry run (the same person, limited to both producers until then)" },
] as const;
type PrincipalKey = (typeof PRINCIPALS)[number]["key"];
type Outcome = "allowed" | "401" | "403" | "404" | "skipped";

const A: Outcome = "allowed";
const U: Outcome = "401";
const F: Outcome = "403";
const N: Outcome = "404";
/** A bulk execution that answers but acts on nothing: each previewed case is `not_found` now. */
const S: Outcome = "skipped";

/** The producer the scoped person works for; every target below belongs to "matrix-shop". */
const OTHER_SHOP = "matrix-other-shop";

const TICK: RouteKey = "POST /api/worker/tick";

// Columns, in order: none, operator, reviewer, finance, admin, revoked personal token,
// expired personal token, producer API key, revoked API key, worker token, viewer (reads only),
// and a person holding every role but admin and viewer, limited to another producer (decision 035):
// a case, hold or request of matrix-shop does not exist for them (404), lists leave matrix-shop's
// rows out (asserted below), and the deployment-wide alerts and global limits are closed (403).
// Last, the same person as the request is made, but limited to matrix-shop and the other producer
// until an admin narrowed them to the other producer after reading the target (for the bulk route:
// after a dry run of an approval on it, the execution being the request): the scope is the one
// loaded for the request (decision 054), so each answer is the scoped column's, and the bulk
// execution acts on nothing.
const EXPECTED: Record<RouteKey, Outcome[]> = {
  "POST /api/v1/cases": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "GET /api/v1/cases/by-operation/{operationId}": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/operations/{operationId}/attempts": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/attempts/{attemptId}/outcome": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  // Signed by the provider alone: no bearer token of any kind is accepted in place of the signature.
  "POST /api/v1/provider-webhooks/replicate": [U, U, U, U, U, U, U, U, U, U, U, U, U],
  "POST /api/v1/provider-webhooks/fal": [U, U, U, U, U, U, U, U, U, U, U, U, U],
  "GET /api/v1/replacements": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/replacements/{id}/ack": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  // A producer's own endpoint: its key only; admins keep the console's form for every producer.
  "GET /api/v1/notification-endpoint": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "PUT /api/v1/notification-endpoint": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/notification-endpoint/rotate-secret": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/notification-endpoint/disable": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/notification-endpoint/enable": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/notification-endpoint/test": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "POST /api/v1/cases/by-operation/{operationId}/notifications/resend": [U, F, F, F, F, U, U, A, U, F, F, F, F],
  "GET /api/v1/cases": [U, A, A, A, A, U, U, F, U, F, A, A, A],
  "GET /api/v1/cases/{id}": [U, A, A, A, A, U, U, F, U, F, A, N, N],
  // Evidence packets: for reviews (reviewer, admin) and billing disputes (finance), not triage.
  "GET /api/v1/cases/{id}/evidence": [U, F, A, A, A, U, U, F, U, F, F, N, N],
  "GET /api/v1/cases/evidence": [U, F, A, A, A, U, U, F, U, F, F, A, A],
  // The producer's own videos: for the people who export evidence, not for triage (decision 067).
  "GET /api/v1/cases/{id}/outputs/{assetId}": [U, F, A, A, A, U, U, F, U, F, F, N, N],
  // A queue view as CSV: what the queue shows, to whoever may read the queue.
  "GET /api/v1/cases/export": [U, A, A, A, A, U, U, F, U, F, A, A, A],
  "POST /api/v1/cases/{id}/reconcile": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/approve": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/review": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/accept-failure": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/accept-outputs-lost": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/notes": [U, A, A, A, F, U, U, F, U, F, F, N, N],
  // Telling a producer again is triage: operators, reviewers and admins (who manage endpoints).
  "POST /api/v1/cases/{id}/notifications/resend": [U, A, A, F, A, U, U, F, U, F, F, N, N],
  "POST /api/v1/cases/{id}/assign": [U, A, A, F, F, U, U, F, U, F, F, N, N],
  // A bulk action needs its verb's permission (here a reviewer's reject); producers' keys never reach it.
  "POST /api/v1/cases/bulk": [U, F, A, F, F, U, U, F, U, F, F, A, S],
  "POST /api/v1/cases/{id}/replacement-requests": [U, F, A, F, F, U, U, F, U, F, F, N, N],
  "GET /api/v1/holds": [U, F, F, A, F, U, U, F, U, F, F, A, A],
  "POST /api/v1/holds/{id}/settle": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/holds/{id}/release": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/holds/{id}/write-off": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/holds/{id}/late-charge/acknowledge": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/replacement-requests/{id}/authorize": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  "POST /api/v1/replacement-requests/{id}/decline": [U, F, F, A, F, U, U, F, U, F, F, N, N],
  // The console's JSON reads, then the tick (the worker's route).
  "GET /api/v1/overview": [U, A, A, A, A, U, U, F, U, F, A, A, A],
  "GET /api/v1/evidence/public-key": [U, A, A, A, A, U, U, F, U, F, A, A, A],
  // Alerts: anyone who reads cases sees the firings; only an admin configures.
  "GET /api/v1/alerts/firings": [U, A, A, A, A, U, U, F, U, F, A, F, F],
  "GET /api/v1/alerts/settings": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/alerts/rules": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/alerts/destinations": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/finance/export": [U, F, F, A, F, U, U, F, U, F, F, A, A],
  "GET /api/v1/finance/spend-limits": [U, F, F, A, F, U, U, F, U, F, F, A, A],
  "PUT /api/v1/finance/spend-limits": [U, F, F, A, F, U, U, F, U, F, F, F, F],
  // A billing export covers every producer's jobs: finance or admin, seeing every producer (decision 073).
  "POST /api/v1/finance/usage-imports": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/finance/usage-gap": [U, F, F, A, A, U, U, F, U, F, F, A, A],
  // Charges no operation explains name no producer: a scoped person reads an empty list and acts on none (decision 074).
  "GET /api/v1/finance/unexplained-charges": [U, F, F, A, A, U, U, F, U, F, F, A, A],
  "POST /api/v1/finance/unexplained-charges/attach": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/finance/unexplained-charges/known-outside": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/finance/provider-jobs/move": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/finance/ledger-versus-invoice": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/finance/holds-not-invoiced": [U, F, F, A, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/admin/provider-pace": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "PUT /api/v1/admin/provider-pace": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/admin/provider-breakers": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "PUT /api/v1/admin/provider-breakers": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/admin/provider-breakers/{provider}/resume": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "GET /api/v1/admin/retention": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "PUT /api/v1/admin/retention": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  "POST /api/v1/admin/retention/dry-run": [U, F, F, F, A, U, U, F, U, F, F, F, F],
  [TICK]: [U, F, F, F, F, U, U, F, U, A, F, F, F],
};

// The routes come from the route table (lib/api/routes.ts), in its order; every one needs its row.
const ROUTE_KEYS = API_ROUTES.map(routeKey) as RouteKey[];
const handlerOf = (route: RouteKey): RouteHandler => {
  const found = API_ROUTES.find((entry) => routeKey(entry) === route);
  if (!found) throw new Error(`${route} is not in the route table`);
  return found.handle;
};
const expectedOf = (route: RouteKey, principal: PrincipalKey): Outcome => {
  const outcome = EXPECTED[route]?.[PRINCIPALS.findIndex((p) => p.key === principal)];
  if (!outcome) throw new Error(`no expectation for ${route} x ${principal}`);
  return outcome;
};

function renderMatrix(): string {
  const header = `| Route | ${PRINCIPALS.map((p) => p.label).join(" | ")} |`;
  const rule = `|---|${PRINCIPALS.map(() => "---").join("|")}|`;
  const rows = ROUTE_KEYS.map(
    (route) => `| \`${route}\` | ${PRINCIPALS.map((p) => expectedOf(route, p.key)).join(" | ")} |`,
  );
  return [
    "# Authorisation matrix",
    "",
    "Every API route against every kind of caller. `allowed` is a 2xx answer; `401` means the caller is",
    "not authenticated (no credentials, or a revoked or expired token); `403` means the credentials are",
    "valid but of the wrong kind for the route, or the user's roles lack the permission; `404` means the",
    "target belongs to a producer the person is not limited to, answered as an ID that does not exist;",
    "`skipped` is a 2xx answer that acts on nothing: every case the dry run previewed is reported",
    "`not_found`, because the person's scope no longer covers it.",
    "",
    "The last column is a person limited to matrix-shop and another producer whom an admin narrows to",
    "the other producer after they read the target (for the bulk route, after their dry run of an",
    "approval on it; the request is its execution). Scope and roles are read again for every request",
    "and checked where each change is written, so the narrowing counts at once (decision 054).",
    "",
    "Personal tokens act as their user with that user's roles; the revoked and expired personal tokens",
    "belong to a user holding every role, so only the token's state refuses them. Besides this table,",
    "a user holding both reviewer and finance cannot authorise or decline their own replacement",
    "request (`403 four_eyes_violation`).",
    "",
    "This file is rendered from the expected table in `tests/integration/authorization-matrix.test.ts`,",
    "which calls each route handler for each cell and asserts exactly this outcome (and, for a refusal,",
    "that no row changed). The test fails if this file differs from the table; regenerate it by running",
    "that test with `WRITE_MATRIX=1`.",
    "",
    header,
    rule,
    ...rows,
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Calling a route handler in-process with a real Request (success bodies may be CSV, not JSON).
// ---------------------------------------------------------------------------------------------

type CallInput = { params?: Record<string, string>; query?: Record<string, string>; body?: unknown };

async function call(handler: RouteHandler, method: string, token: string | undefined, input: CallInput) {
  const url = new URL("http://localhost/api/matrix");
  for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const body = input.body === undefined ? undefined : JSON.stringify(input.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await handler(new Request(url, { method, headers, body }), {
    params: Promise.resolve(input.params ?? {}),
  });
  const isJson = response.headers.get("content-type")?.includes("application/json") ?? false;
  const json = (isJson ? await response.json() : null) as { error?: { code: string; message: string } } | null;
  // A file's stream (a delivered output) is not read here: let go of it.
  if (!isJson) await response.body?.cancel();
  return { status: response.status, json };
}

// ---------------------------------------------------------------------------------------------
// Principals and targets.
// ---------------------------------------------------------------------------------------------

const tokens = {} as Record<PrincipalKey, string | undefined>;
let shop: ProducerActor;
let requester: UserActor;
let financeUser: UserActor;
let ownOperationId = "";
let authorisedReplacementId = "";
let alertDestinationId = "";
let narrowedId = "";

/**
 * The "narrowed" column's request: prepared while its person still works for matrix-shop (the bulk
 * route's being the execution of their own dry run of an approval), then the person is narrowed to
 * the other producer, as an admin's change would: the token stays the one they had.
 */
async function narrowedAfterDryRun(route: RouteKey, input: CallInput): Promise<CallInput> {
  await db.user.update({ where: { id: narrowedId }, data: { producerScope: ["matrix-shop", OTHER_SHOP] } });
  let prepared = input;
  if (route === "POST /api/v1/cases/bulk") {
    const body = input.body as { target: unknown };
    const target = { kind: "ids", caseIds: [await parked("polling")] };
    const request = { action: { verb: "approve", evidence: "the job is still running" }, target };
    const dry = await call(handlerOf(route), "POST", tokens.narrowed, { body: { mode: "dry_run", ...request } });
    expect(dry.json).toMatchObject({ willAct: 1 });
    const token = (dry.json as unknown as { token: string }).token;
    prepared = { body: { ...body, mode: "execute", ...request, token } };
  }
  await db.user.update({ where: { id: narrowedId }, data: { producerScope: [OTHER_SHOP] } });
  return prepared;
}

async function personalToken(user: UserActor, expiresAt?: Date) {
  return createAccessToken(db, user, { kind: "personal", name: "matrix", ...(expiresAt ? { expiresAt } : {}) });
}

beforeAll(async () => {
  const users = {
    operator: await makeUser(db, ["operator"]),
    reviewer: await makeUser(db, ["reviewer"]),
    finance: await makeUser(db, ["finance"]),
    admin: await makeUser(db, ["admin"]),
    viewer: await makeUser(db, ["viewer"]),
    scoped: await makeUser(db, ["operator", "reviewer", "finance"]),
    narrowed: await makeUser(db, ["operator", "reviewer", "finance"]),
  };
  await db.user.update({ where: { id: users.scoped.userId }, data: { producerScope: [OTHER_SHOP] } });
  narrowedId = users.narrowed.userId;
  const everyRole = await makeUser(db, ["operator", "reviewer", "finance", "admin"]);
  tokens.none = undefined;
  for (const role of ["operator", "reviewer", "finance", "admin", "viewer", "scoped", "narrowed"] as const) {
    tokens[role] = (await personalToken(users[role])).secret;
  }
  const revoked = await personalToken(everyRole);
  await revokeAccessToken(db, everyRole, revoked.id);
  tokens.revokedToken = revoked.secret;
  tokens.expiredToken = (await personalToken(everyRole, new Date(Date.now() - 60_000))).secret;

  const key = await createAccessToken(db, "cli", { kind: "api_key", name: "matrix-shop" });
  tokens.producerKey = key.secret;
  shop = { kind: "api_key", apiKeyId: key.id, name: key.name };
  const revokedKey = await createAccessToken(db, "cli", { kind: "api_key", name: "matrix-shop" });
  await revokeAccessToken(db, users.admin, revokedKey.id);
  tokens.revokedKey = revokedKey.secret;
  tokens.workerToken = (await createAccessToken(db, "cli", { kind: "worker", name: "matrix-worker" })).secret;

  alertDestinationId = (
    await db.alertDestination.create({
      data: { name: "matrix chat", kind: "slack", url: "https://chat.example.com/hook" },
    })
  ).id;
  requester = await makeUser(db, ["reviewer"]);
  financeUser = users.finance;
  const own = parkInput("polling");
  await parkCase(db, shop, own);
  ownOperationId = own.operationId;
  const authorised = await pendingReplacement();
  await authorizeReplacement(db, await makeUser(db, ["finance"]), authorised, { evidence: "budget approved" });
  authorisedReplacementId = authorised;
});

/** A job the daily sweep found that no attempt owns (decision 074). */
async function listedJob(provider: string): Promise<string> {
  const providerJobId = `matrix-${provider}-${randomUUID()}`;
  await db.unownedJob.create({
    data: { provider, providerJobId, jobCreatedAt: new Date(), status: "completed", providerStatus: "succeeded" },
  });
  return providerJobId;
}

async function parked(stage: Stage) {
  const { caseId } = await parkCase(db, shop, parkInput(stage));
  return String(caseId);
}

/** A delivery whose outputs the worker found deleted at the provider (the fact set as the worker sets it). */
async function outputsLost() {
  const caseId = await parked("delivery");
  await db.case.update({ where: { id: caseId }, data: { outputsUnavailableAt: new Date() } });
  return caseId;
}

/** A delivered case with one published output whose file is in the store the route reads. */
async function deliveredOutput(): Promise<CallInput> {
  const id = await parked("delivery");
  const kase = await db.case.findUniqueOrThrow({ where: { id } });
  const storageKey = `matrix/${id}/0.mp4`;
  const write = await assetStorageOf(env()).begin(storageKey);
  write.sink.end(Buffer.from("a tiny video"));
  await write.commit();
  const asset = await publishedAsset(db, kase, { storageKey, sizeBytes: 12, sha256: "cd".repeat(32) });
  return { params: { id, assetId: asset.id } };
}

async function heldHold(stage: Stage = "polling") {
  const caseId = await parked(stage);
  return (await db.hold.findFirstOrThrow({ where: { caseId } })).id;
}

/** A hold written off while its job was being checked, then charged: its completion came after. */
async function lateChargedHold() {
  const holdRef = await heldHold();
  await resolveHold(db, financeUser, holdRef, { kind: "write_off", note: "support lost it", evidence: "ticket 9" });
  await chargeAfterRelease(db, shop, { holdRef, how: "the matrix's fixture" });
  return holdRef;
}

/**
 * matrix-shop's endpoint, enabled, at `url`: written directly, since a private address is refused
 * when saved (it is the send-time check the test route's cell is about).
 */
async function ownEndpoint(url = "https://hooks.example.com/matrix"): Promise<CallInput> {
  await db.notificationEndpoint.upsert({
    where: { producer: "matrix-shop" },
    create: { producer: "matrix-shop", url, signingSecret: generateSigningSecret() },
    update: { url, disabledAt: null },
  });
  return {};
}

/**
 * A matrix-shop case whose notification was given up, with the endpoint at a literal private
 * address: an allowed resend is refused before any connection (a 200 saying it was not delivered).
 */
async function notToldCase() {
  await ownEndpoint("https://10.255.255.1/matrix");
  const input = parkInput("delivery");
  const { caseId } = await parkCase(db, shop, input);
  await db.notificationOutbox.create({
    data: {
      id: `msg_matrix_${randomUUID()}`,
      producer: "matrix-shop",
      caseId: String(caseId),
      eventType: "case.delivered",
      payload: { type: "case.delivered" },
      attempts: 12,
      giveUpAt: new Date(),
      lastStatus: 503,
    },
  });
  return { caseId: String(caseId), operationId: input.operationId };
}

/** A proven failure with a replacement request waiting, asked for by a reviewer (not the caller). */
async function pendingReplacement() {
  const caseId = await parked("generation_failed");
  const { requestId } = await requestReplacement(db, requester, caseId, { evidence: "the model returned an error" });
  return requestId;
}

// A valid request per route, aimed at fresh rows wherever a success would consume its target.
const TARGETS: Record<RouteKey, () => Promise<CallInput>> = {
  "POST /api/v1/cases": async () => ({ body: parkInput("delivery") }),
  "GET /api/v1/cases/by-operation/{operationId}": async () => ({ params: { operationId: ownOperationId } }),
  "POST /api/v1/operations/{operationId}/attempts": async () => {
    const { operationId, input } = permitInput();
    return { params: { operationId }, body: input };
  },
  "POST /api/v1/attempts/{attemptId}/outcome": async () => {
    const { operationId, input } = permitInput();
    await requestPermit(db, shop, operationId, input, env());
    return {
      params: { attemptId: input.attemptId },
      body: outcomeInput(operationId, 1, "accepted", `job-${operationId}`),
    };
  },
  "POST /api/v1/provider-webhooks/replicate": async () => ({ body: { id: "job-matrix", status: "succeeded" } }),
  "POST /api/v1/provider-webhooks/fal": async () => ({ body: { request_id: "job-matrix", status: "OK" } }),
  "GET /api/v1/replacements": async () => ({ query: { status: "authorized" } }),
  "POST /api/v1/replacements/{id}/ack": async () => ({ params: { id: authorisedReplacementId } }),
  "GET /api/v1/notification-endpoint": async () => ({}),
  "PUT /api/v1/notification-endpoint": async () => ({ body: { url: "https://hooks.example.com/matrix" } }),
  "POST /api/v1/notification-endpoint/rotate-secret": ownEndpoint,
  "POST /api/v1/notification-endpoint/disable": ownEndpoint,
  "POST /api/v1/notification-endpoint/enable": ownEndpoint,
  // A literal private address: the test send is refused before any connection (a 200 saying so).
  "POST /api/v1/notification-endpoint/test": () => ownEndpoint("https://10.255.255.1/matrix"),
  "POST /api/v1/cases/by-operation/{operationId}/notifications/resend": async () => ({
    params: { operationId: (await notToldCase()).operationId },
  }),
  "POST /api/v1/cases/{id}/notifications/resend": async () => ({ params: { id: (await notToldCase()).caseId } }),
  "GET /api/v1/cases": async () => ({ query: { stage: "polling", limit: "5" } }),
  "GET /api/v1/cases/{id}": async () => ({ params: { id: await parked("polling") } }),
  "GET /api/v1/cases/{id}/evidence": async () => ({ params: { id: await parked("polling") } }),
  "GET /api/v1/cases/evidence": async () => ({ query: { producer: "matrix-shop", stage: "polling" } }),
  "GET /api/v1/cases/{id}/outputs/{assetId}": deliveredOutput,
  "GET /api/v1/cases/export": async () => ({ query: { producer: "matrix-shop", sort: "provider" } }),
  "POST /api/v1/cases/{id}/reconcile": async () => ({
    params: { id: await parked("submission_uncertain") },
    body: { verdict: "attach", providerJobId: "job-found-in-dashboard", evidence: "provider dashboard" },
  }),
  "POST /api/v1/cases/{id}/approve": async () => ({
    params: { id: await parked("polling") },
    body: { action: "resume_poll", evidence: "job is still running" },
  }),
  "POST /api/v1/cases/{id}/review": async () => ({
    params: { id: await parked("polling") },
    body: { verdict: "escalate", evidence: "needs a second opinion" },
  }),
  "POST /api/v1/cases/{id}/accept-failure": async () => ({
    params: { id: await parked("generation_failed") },
    body: { evidence: "provider reported a content failure" },
  }),
  "POST /api/v1/cases/{id}/accept-outputs-lost": async () => ({
    params: { id: await outputsLost() },
    body: { evidence: "the provider deleted the outputs before the copy" },
  }),
  "POST /api/v1/cases/{id}/notes": async () => ({
    params: { id: await parked("polling") },
    body: { text: "looked at it" },
  }),
  "POST /api/v1/cases/{id}/assign": async () => ({
    params: { id: await parked("polling") },
    body: { assigneeId: requester.userId },
  }),
  "POST /api/v1/cases/bulk": async () => ({
    body: {
      mode: "dry_run",
      action: { verb: "reject", evidence: "the job is not worth recovering" },
      target: { kind: "ids", caseIds: [await parked("polling")] },
    },
  }),
  "POST /api/v1/cases/{id}/replacement-requests": async () => ({
    params: { id: await parked("generation_failed") },
    body: { evidence: "the generation failed for good" },
  }),
  "POST /api/v1/holds/{id}/settle": async () => ({
    params: { id: await heldHold() },
    body: { chargeMicros: 40_000, note: "invoice line 14", evidence: "usage export" },
  }),
  "POST /api/v1/holds/{id}/release": async () => ({
    params: { id: await heldHold("generation_failed") },
    body: { note: "no charge on the invoice", evidence: "usage export, 0 s" },
  }),
  "POST /api/v1/holds/{id}/write-off": async () => ({
    params: { id: await heldHold() },
    body: { reason: "the provider's support lost the job", evidence: "ticket 9" },
  }),
  "POST /api/v1/holds/{id}/late-charge/acknowledge": async () => ({
    params: { id: await lateChargedHold() },
    body: { note: "recovered from the customer" },
  }),
  "POST /api/v1/replacement-requests/{id}/authorize": async () => ({
    params: { id: await pendingReplacement() },
    body: { evidence: "budget approved" },
  }),
  "POST /api/v1/replacement-requests/{id}/decline": async () => ({
    params: { id: await pendingReplacement() },
    body: { evidence: "not worth it" },
  }),
  "GET /api/v1/overview": async () => ({}),
  "GET /api/v1/evidence/public-key": async () => ({}),
  "GET /api/v1/alerts/firings": async () => ({ query: { limit: "5" } }),
  "GET /api/v1/alerts/settings": async () => ({}),
  "POST /api/v1/alerts/rules": async () => ({
    body: { name: `matrix rule ${randomUUID()}`, kind: "escalated_overdue", destinationId: alertDestinationId },
  }),
  "POST /api/v1/alerts/destinations": async () => ({
    body: { name: `matrix ${randomUUID()}`, kind: "webhook", url: "https://hooks.example.com/alerts" },
  }),
  "GET /api/v1/holds": async () => ({ query: { status: "held", operation: "matrix" } }),
  "GET /api/v1/finance/export": async () => ({ query: { from: "2026-11-01", to: "2026-11-30", kind: "ledger" } }),
  "GET /api/v1/finance/spend-limits": async () => ({}),
  // A line naming a job no attempt has: each allowed call adds one unexplained line, nothing else.
  "POST /api/v1/finance/usage-imports": async () => ({
    body: {
      provider: "runway",
      format: "generic",
      fileName: "matrix.csv",
      content: `provider_job_id,amount,currency,time\nmatrix-${randomUUID()},1.25,NOK,2026-11-02T10:00:00Z\n`,
    },
  }),
  "GET /api/v1/finance/usage-gap": async () => ({ query: { days: "30" } }),
  "GET /api/v1/finance/unexplained-charges": async () => ({ query: { provider: "runway", page: "1" } }),
  // Each allowed call attaches a fresh listed job to a fresh uncertain submission.
  "POST /api/v1/finance/unexplained-charges/attach": async () => ({
    body: {
      provider: "replicate",
      providerJobId: await listedJob("replicate"),
      caseId: await parked("submission_uncertain"),
      evidence: "the provider's list shows it",
    },
  }),
  // Each allowed call moves a fresh case's job to a fresh uncertain submission (decision 084).
  "POST /api/v1/finance/provider-jobs/move": async () => {
    const holder = await db.case.findUniqueOrThrow({ where: { id: await parked("polling") } });
    return {
      body: {
        provider: holder.provider,
        providerJobId: holder.providerJobId ?? "",
        caseId: await parked("submission_uncertain"),
        evidence: "the shop says the other operation made it",
      },
    };
  },
  "POST /api/v1/finance/unexplained-charges/known-outside": async () => ({
    body: { provider: "runway", providerJobId: await listedJob("runway"), reason: "a test from a script" },
  }),
  "GET /api/v1/finance/ledger-versus-invoice": async () => ({ query: { provider: "runway" } }),
  "GET /api/v1/finance/holds-not-invoiced": async () => ({ query: { provider: "runway" } }),
  // A limit in a currency no other cell uses, so no authorisation here is ever refused by it.
  "PUT /api/v1/finance/spend-limits": async () => ({
    body: { currency: "NOK", perHourMicros: 900_000_000, perDayMicros: null },
  }),
  "GET /api/v1/admin/provider-pace": async () => ({}),
  "PUT /api/v1/admin/provider-pace": async () => ({ body: { provider: "fal", requestsPerSecond: null } }),
  "GET /api/v1/admin/provider-breakers": async () => ({}),
  // Removing a breaker no cell has: no permit here is ever paused by it.
  "PUT /api/v1/admin/provider-breakers": async () => ({ body: { provider: "fal", off: true } }),
  // A closed breaker with a threshold no cell's sends can reach, so there is one to resume.
  "POST /api/v1/admin/provider-breakers/{provider}/resume": async () => {
    await db.providerBreaker.upsert({
      where: { provider: "luma" },
      create: {
        provider: "luma",
        unknownPercent: 100,
        windowSeconds: 60,
        minOutcomes: 1_000_000,
        updatedById: randomUUID(),
      },
      update: {},
    });
    return { params: { provider: "luma" } };
  },
  "GET /api/v1/admin/retention": async () => ({}),
  "PUT /api/v1/admin/retention": async () => ({ body: { producer: "matrix-shop", days: 90 } }),
  "POST /api/v1/admin/retention/dry-run": async () => ({}),
  [TICK]: async () => ({ body: { workerId: "matrix-worker", maxTasks: 1 } }),
};

// ---------------------------------------------------------------------------------------------
// The assertions.
// ---------------------------------------------------------------------------------------------

describe("authorisation matrix", () => {
  it("covers exactly the route table: an expectation and a request for every route", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...ROUTE_KEYS].sort());
    expect(Object.keys(TARGETS).sort()).toEqual([...ROUTE_KEYS].sort());
    for (const route of ROUTE_KEYS) expect(EXPECTED[route], route).toHaveLength(PRINCIPALS.length);
  });

  // The tick runs first, while no case is ready, so it never reaches a provider.
  const runOrder = [TICK, ...ROUTE_KEYS.filter((route) => route !== TICK)];
  const cells = runOrder.flatMap((route) => PRINCIPALS.map((p) => [route, p.key, expectedOf(route, p.key)] as const));

  it.each(cells)("%s as %s -> %s", async (route, principal, outcome) => {
    const target = TARGETS[route];
    if (!target) throw new Error(`no request for ${route}`);
    const input = principal === "narrowed" ? await narrowedAfterDryRun(route, await target()) : await target();
    const before = outcome === "allowed" ? null : await tableCounts(db);
    const result = await call(handlerOf(route), route.split(" ")[0] ?? "GET", tokens[principal], input);
    if (outcome === "skipped") {
      expect(result.status, JSON.stringify(result.json)).toBe(200);
      expect(result.json).toMatchObject({ applied: 0, appliedCaseIds: [], skipped: [{ code: "not_found" }] });
      expect(await tableCounts(db)).toEqual(before);
      return;
    }
    if (outcome === "allowed") {
      expect(result.status, JSON.stringify(result.json)).toBeGreaterThanOrEqual(200);
      expect(result.status, JSON.stringify(result.json)).toBeLessThan(300);
      return;
    }
    expect(result.status, JSON.stringify(result.json)).toBe(Number(outcome));
    const code = { "401": "unauthenticated", "403": "forbidden", "404": "not_found" }[outcome];
    expect(result.json).toEqual({ error: { code, message: expect.any(String) } });
    expect(await tableCounts(db)).toEqual(before);
  });

  it("four-eyes: a reviewer who is also finance cannot authorise or decline their own request", async () => {
    const both = await makeUser(db, ["reviewer", "finance"]);
    const token = (await personalToken(both)).secret;
    const caseId = await parked("generation_failed");
    const requested = await call(handlerOf("POST /api/v1/cases/{id}/replacement-requests"), "POST", token, {
      params: { id: caseId },
      body: { evidence: "the generation failed for good" },
    });
    expect(requested.status).toBe(200);
    const requestId = String((requested.json as unknown as { requestId: string }).requestId);
    const before = await tableCounts(db);
    const decisions = [
      "POST /api/v1/replacement-requests/{id}/authorize",
      "POST /api/v1/replacement-requests/{id}/decline",
    ];
    for (const handler of decisions.map((route) => handlerOf(route as RouteKey))) {
      const result = await call(handler, "POST", token, { params: { id: requestId }, body: { evidence: "mine" } });
      expect(result.status).toBe(403);
      expect(result.json).toEqual({ error: { code: "four_eyes_violation", message: expect.any(String) } });
    }
    expect(await tableCounts(db)).toEqual(before);
    expect(await db.replacementRequest.findUniqueOrThrow({ where: { id: requestId } })).toMatchObject({
      status: "pending",
      decidedById: null,
    });
    // A different finance user can.
    const authorize = handlerOf("POST /api/v1/replacement-requests/{id}/authorize");
    const other = await call(authorize, "POST", (await personalToken(financeUser)).secret, {
      params: { id: requestId },
      body: { evidence: "budget approved" },
    });
    expect(other.status).toBe(200);
  });

  it("docs/authorization-matrix.md is rendered from this table", () => {
    const file = new URL("../../docs/authorization-matrix.md", import.meta.url);
    if (process.env.WRITE_MATRIX === "1") writeFileSync(file, renderMatrix());
    expect(readFileSync(file, "utf8")).toBe(renderMatrix());
  });
});
