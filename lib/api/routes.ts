import { Readable } from "node:stream";
import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { webhookAllowListFromEnv } from "@/lib/notify/webhook-allow-list";
import { webhookReport as falWebhookReport } from "@/lib/providers/fal/transform";
import { webhookReport as replicateWebhookReport } from "@/lib/providers/replicate/transform";
import { requireWorker } from "@/lib/services/access/actor";
import { listProviderPaces, saveProviderPace } from "@/lib/services/admin/save-provider-pace";
import { listAlertFirings } from "@/lib/services/alert/list-alert-firings";
import { listAlertSettings } from "@/lib/services/alert/list-alert-settings";
import { saveAlertDestination } from "@/lib/services/alert/save-alert-destination";
import { saveAlertRule } from "@/lib/services/alert/save-alert-rule";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { acceptOutputsLost } from "@/lib/services/case/accept-outputs-lost";
import { addNote } from "@/lib/services/case/add-note";
import { approveCase } from "@/lib/services/case/approve-case";
import { assignCase } from "@/lib/services/case/assign-case";
import { type BulkDryRun, type BulkExecution, dryRunBulk, executeBulk } from "@/lib/services/case/bulk-cases";
import { exportQueueCsv } from "@/lib/services/case/export-queue-csv";
import { getCase } from "@/lib/services/case/get-case";
import { getCaseByOperation } from "@/lib/services/case/get-case-by-operation";
import { listCases } from "@/lib/services/case/list-cases";
import { type OpenedOutput, openOutput } from "@/lib/services/case/open-output";
import { reconcileCase } from "@/lib/services/case/reconcile-case";
import { reviewCase } from "@/lib/services/case/review-case";
import {
  evidencePublicKey,
  exportCaseEvidence,
  exportFilterEvidence,
  type IssuedPacket,
} from "@/lib/services/evidence/export-evidence";
import { exportFinanceCsv } from "@/lib/services/finance/export-ledger";
import { acknowledgeLateCharge } from "@/lib/services/hold/acknowledge-late-charge";
import { listHolds } from "@/lib/services/hold/list-holds";
import { resolveHold } from "@/lib/services/hold/resolve-hold";
import { getOwnNotificationEndpoint } from "@/lib/services/notification/get-own-notification-endpoint";
import { endpointView } from "@/lib/services/notification/list-notification-endpoints";
import {
  type ResendOptions,
  resendCaseNotifications,
  resendOwnNotifications,
} from "@/lib/services/notification/resend-notifications";
import { rotateEndpointSecret } from "@/lib/services/notification/rotate-endpoint-secret";
import { saveNotificationEndpoint } from "@/lib/services/notification/save-notification-endpoint";
import { sendTestNotification } from "@/lib/services/notification/send-test-notification";
import { setEndpointDisabled } from "@/lib/services/notification/set-endpoint-disabled";
import { overviewStats } from "@/lib/services/overview/overview-stats";
import { parkOperation } from "@/lib/services/permit/park-permitted-delivery";
import { reportOutcome } from "@/lib/services/permit/report-outcome";
import { requestPermit } from "@/lib/services/permit/request-permit";
import {
  listProviderBreakers,
  resumeProviderBreaker,
  saveProviderBreaker,
} from "@/lib/services/provider-breaker/provider-breakers";
import { receiveSignedWebhook } from "@/lib/services/provider-webhook/receive-webhook";
import { authorizeReplacement, declineReplacement } from "@/lib/services/replacement/decide-replacement";
import { acknowledgeReplacement, listReplacements } from "@/lib/services/replacement/producer-replacements";
import { requestReplacement } from "@/lib/services/replacement/request-replacement";
import { dryRunRetention, getRetentionPolicy, saveRetentionPolicy } from "@/lib/services/retention/retention-policy";
import { listSpendLimits } from "@/lib/services/spend-limit/list-spend-limits";
import { setSpendLimit } from "@/lib/services/spend-limit/set-spend-limit";
import { attachUnexplainedCharge } from "@/lib/services/usage/attach-unexplained-charge";
import { importUsageFile } from "@/lib/services/usage/import-usage-file";
import { ledgerVersusInvoice } from "@/lib/services/usage/ledger-versus-invoice";
import { listHoldsNotInvoiced } from "@/lib/services/usage/list-holds-not-invoiced";
import { listUnexplainedCharges } from "@/lib/services/usage/list-unexplained-charges";
import { markChargeKnownOutside } from "@/lib/services/usage/mark-charge-known-outside";
import { moveJobToSend } from "@/lib/services/usage/move-job-to-send";
import { usageGap } from "@/lib/services/usage/usage-gap";
import { assetStorageOf } from "@/lib/storage/asset-storage";
import { ownEndpointBody } from "@/lib/validation/admin";
import { alertDestinationBody, listAlertFiringsSchema, saveAlertRuleSchema } from "@/lib/validation/alerts";
import { bulkRequestSchema } from "@/lib/validation/bulk";
import { evidenceFilterSchema } from "@/lib/validation/evidence";
import { exportQuerySchema, listHoldsSchema } from "@/lib/validation/finance";
import { listCasesSchema, queueExportSchema } from "@/lib/validation/list-cases";
import { idParams, operationParams, outputParams, outputQuery, replacementsQuery } from "@/lib/validation/params";
import { parkCaseSchema } from "@/lib/validation/park-case";
import {
  attemptParams,
  falWebhookBody,
  outcomeReportSchema,
  permitRequestSchema,
  replicateWebhookBody,
  webhookQuery,
} from "@/lib/validation/permits";
import { overviewQuerySchema, producersOf } from "@/lib/validation/producer-filter";
import { providerBreakerSchema, providerParams } from "@/lib/validation/provider-breaker";
import { providerPaceSchema } from "@/lib/validation/provider-pace";
import { retentionPolicySchema } from "@/lib/validation/retention";
import {
  approveSchema,
  assignSchema,
  evidenceOnlySchema,
  lateChargeDecisionSchema,
  noteSchema,
  reconcileSchema,
  releaseSchema,
  replacementDecisionSchema,
  replacementRequestSchema,
  reviewSchema,
  settleSchema,
  writeOffSchema,
} from "@/lib/validation/review";
import { spendLimitSchema } from "@/lib/validation/spend-limits";
import {
  attachUnexplainedSchema,
  holdsNotInvoicedQuerySchema,
  knownOutsideSchema,
  ledgerVersusInvoiceQuerySchema,
  moveJobSchema,
  unexplainedChargesQuerySchema,
  usageGapQuerySchema,
  usageImportSchema,
} from "@/lib/validation/usage";
import { tickSchema } from "@/lib/validation/worker-tick";
import { processWorkerContext } from "@/lib/worker/process-context";
import { runTick } from "@/lib/worker/run-tick";
import { JSON_TYPE } from "./api-request";
import { type ApiRoute, apiRoute, type RouteHandler } from "./api-route";
import { authenticateFal, authenticateReplicate } from "./authenticate-provider";

/**
 * An evidence packet goes out as the exact bytes that were signed (its canonical JSON), as a file:
 * re-serialising it would change no fact but would break a byte-for-byte check.
 */
const evidenceFile = {
  contentType: JSON_TYPE,
  reply: (issued: IssuedPacket) => ({
    body: issued.text,
    headers: {
      "Content-Disposition": `attachment; filename="${issued.filename}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "X-Evidence-Sha256": issued.sha256,
    },
  }),
};

/**
 * A delivered output goes out as stored. Only a video or an image plays in the page: any other type
 * the provider named is a download of opaque bytes, so no stored file can run as a page of the console.
 */
const PLAYABLE = /^(video|image)\/[a-z0-9.+-]+$/;
const outputFile = {
  contentType: "application/octet-stream",
  reply: (output: OpenedOutput) => {
    const inline = !output.download && PLAYABLE.test(output.contentType);
    const { range, sizeBytes } = output;
    // One range (decision 071): 206 with the part's place in the file, 416 with the file's size.
    const part: Record<string, string> =
      range.kind === "part"
        ? {
            "Content-Range": `bytes ${range.start}-${range.end}/${sizeBytes}`,
            "Content-Length": String(range.end - range.start + 1),
          }
        : range.kind === "unsatisfiable"
          ? { "Content-Range": `bytes */${sizeBytes}`, "Content-Length": "0" }
          : { "Content-Length": String(sizeBytes) };
    return {
      body: output.stream ? (Readable.toWeb(output.stream) as ReadableStream<Uint8Array>) : "",
      contentType: inline ? output.contentType : "application/octet-stream",
      headers: {
        "Content-Disposition": `${inline ? "inline" : "attachment"}; filename="${output.filename}"`,
        ...part,
        "Accept-Ranges": "bytes",
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    };
  },
};

/** A CSV export as a download, with its row count and any header of its own. */
function csvFile<R extends { body: string; filename: string; rowCount: number }>(
  more: (file: R) => Record<string, string> = () => ({}),
) {
  return {
    contentType: "text/csv; charset=utf-8",
    reply: (file: R) => ({
      body: file.body,
      headers: {
        "Content-Disposition": `attachment; filename="${file.filename}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Row-Count": String(file.rowCount),
        ...more(file),
      },
    }),
  };
}

/** A resend leaves the server as every notification does: to public addresses or the allow-list. */
const resendOptions = (): ResendOptions => ({ send: { allow: webhookAllowListFromEnv(env()) }, random: Math.random });

/**
 * Every JSON API route, declared once: method, path, who may call it, its schemas, its summary and
 * the service it calls. The route files under app/api export their methods from here
 * (`routeHandlers`), the HTTP entry serves the `direct` ones itself (server/serve-direct.ts), the
 * OpenAPI document lists exactly these (openapi.ts), and the authorisation matrix tests every one.
 * tests/unit/route-table.test.ts holds the files and the table to each other.
 */
export const API_ROUTES = [
  // Producers (API keys): registering cases and fetching replacements, in bursts.
  apiRoute({
    method: "POST",
    path: "/api/v1/cases",
    audience: "producer",
    direct: true,
    summary: "Park a case (idempotent)",
    body: parkCaseSchema,
    success: [201, 200],
    handler: ({ actor, body }) => parkOperation(db(), actor, body, { settings: env() }),
    status: (result) => (result.created ? 201 : 200),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/by-operation/{operationId}",
    audience: "producer",
    direct: true,
    summary: "The case of one of your operations",
    params: operationParams,
    success: [200],
    handler: ({ actor, params }) => getCaseByOperation(db(), actor, params.operationId),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/operations/{operationId}/attempts",
    audience: "producer",
    direct: true,
    summary: "Ask for a send permit before a paid create (write-ahead; reserves the hold)",
    params: operationParams,
    body: permitRequestSchema,
    success: [201, 200],
    // 409 spend_limit_reached and 503 provider_paused (with Retry-After) refuse a new send (decision 037).
    errors: [503],
    handler: ({ actor, params, body }) => requestPermit(db(), actor, params.operationId, body, env()),
    status: (result) => (result.status === "permitted" && result.created ? 201 : 200),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/attempts/{attemptId}/outcome",
    audience: "producer",
    direct: true,
    summary: "Report what a permitted send came to: accepted, rejected, unknown, completed or failed",
    params: attemptParams,
    body: outcomeReportSchema,
    success: [200],
    handler: ({ actor, params, body }) => reportOutcome(db(), actor, params.attemptId, body, env()),
  }),
  // Providers (their own webhook signatures): completions and failures as evidence.
  apiRoute({
    method: "POST",
    path: "/api/v1/provider-webhooks/replicate",
    audience: "provider",
    direct: true,
    summary: "Replicate prediction webhook (Standard Webhooks signature), taken as a status observation",
    signature: authenticateReplicate,
    query: webhookQuery,
    body: replicateWebhookBody,
    success: [200],
    handler: ({ actor, body, query }) =>
      receiveSignedWebhook(db(), actor, { report: replicateWebhookReport(body), ref: query.ref }, env()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/provider-webhooks/fal",
    audience: "provider",
    direct: true,
    summary: "fal queue webhook (Ed25519 signature, keys from fal's JWKS), taken as a status observation",
    signature: authenticateFal,
    query: webhookQuery,
    body: falWebhookBody,
    success: [200],
    handler: ({ actor, body, query }) =>
      receiveSignedWebhook(db(), actor, { report: falWebhookReport(body), ref: query.ref }, env()),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/replacements",
    audience: "producer",
    direct: true,
    summary: "Authorised replacements to submit",
    query: replacementsQuery,
    success: [200],
    handler: ({ actor, query }) => listReplacements(db(), actor, query.status, env()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/replacements/{id}/ack",
    audience: "producer",
    direct: true,
    summary: "Acknowledge an authorised replacement",
    params: idParams,
    success: [200],
    handler: ({ actor, params }) => acknowledgeReplacement(db(), actor, params.id),
  }),

  // A producer's own notification endpoint: the same services as the console's admin form, limited
  // to the key's producer. The signing secret is answered only on creation and rotation. Called now
  // and then, not in bursts, so Next.js serves them (not `direct`, decision 009).
  apiRoute({
    method: "GET",
    path: "/api/v1/notification-endpoint",
    audience: "producer",
    summary: "Your notification endpoint (URL, enabled, dates; never the secret), or null",
    success: [200],
    handler: ({ actor }) => getOwnNotificationEndpoint(db(), actor),
  }),
  apiRoute({
    method: "PUT",
    path: "/api/v1/notification-endpoint",
    audience: "producer",
    summary: "Register your notification endpoint (its whsec_ signing secret is returned this once) or change its URL",
    body: ownEndpointBody,
    success: [201, 200],
    handler: async ({ actor, body }) => {
      const saved = await saveNotificationEndpoint(db(), actor, body, { allow: webhookAllowListFromEnv(env()) });
      return { endpoint: endpointView(saved.endpoint), signingSecret: saved.signingSecret };
    },
    status: (result) => (result.signingSecret ? 201 : 200),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/notification-endpoint/rotate-secret",
    audience: "producer",
    summary: "Replace your endpoint's signing secret (returned this once); the old one stops signing at once",
    success: [200],
    handler: async ({ actor }) => {
      const rotated = await rotateEndpointSecret(db(), actor);
      return { endpoint: endpointView(rotated.endpoint), signingSecret: rotated.signingSecret };
    },
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/notification-endpoint/disable",
    audience: "producer",
    summary: "Stop sending to your endpoint (it keeps its URL and secret; idempotent)",
    success: [200],
    handler: async ({ actor }) => ({
      endpoint: endpointView(await setEndpointDisabled(db(), actor, { disabled: true })),
    }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/notification-endpoint/enable",
    audience: "producer",
    summary: "Send to your endpoint again (idempotent)",
    success: [200],
    handler: async ({ actor }) => ({
      endpoint: endpointView(await setEndpointDisabled(db(), actor, { disabled: false })),
    }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/notification-endpoint/test",
    audience: "producer",
    summary:
      "Send your endpoint a signed endpoint.test event now, with the same address checks as every notification, " +
      "and say whether it was delivered (its HTTP status) or why not; a few a minute",
    success: [200],
    handler: ({ actor }) => sendTestNotification(db(), actor, { allow: webhookAllowListFromEnv(env()) }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/by-operation/{operationId}/notifications/resend",
    audience: "producer",
    summary:
      'Send your operation\'s given-up notifications again now (the case is flagged "producer not told" until one is ' +
      "delivered); 409 nothing_to_resend or endpoint_disabled, 429 past 3 resends of a case an hour",
    params: operationParams,
    success: [200],
    handler: ({ actor, params }) => resendOwnNotifications(db(), actor, params.operationId, resendOptions()),
  }),
  // People (a personal token, or the console's session): reading, reviewing, deciding money.
  apiRoute({
    method: "GET",
    path: "/api/v1/cases",
    audience: "user",
    summary: "List cases (filters, keyset pages)",
    query: listCasesSchema,
    success: [200],
    handler: ({ actor, query }) => listCases(db(), actor, query),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/{id}",
    audience: "user",
    summary: "A case with hold, lineage and timeline",
    params: idParams,
    success: [200],
    handler: ({ actor, params }) => getCase(db(), actor, params.id, env()),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/{id}/evidence",
    audience: "user",
    // An export writes an audit row on every case in it (decision 029).
    refuseCrossSite: true,
    summary: "The case's evidence packet: facts, decisions, observations, holds, ledger, audit chain; signed (Ed25519)",
    params: idParams,
    success: [200],
    errors: [503],
    handler: ({ actor, params }) => exportCaseEvidence(db(), actor, params.id, env()),
    file: evidenceFile,
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/{id}/outputs/{assetId}",
    audience: "user",
    summary: "A delivered output of the case, as stored: played in the page, or downloaded with download=1",
    params: outputParams,
    query: outputQuery,
    success: [200, 206],
    errors: [416],
    status: (output) => (output.range.kind === "part" ? 206 : output.range.kind === "unsatisfiable" ? 416 : 200),
    handler: ({ actor, params, query, header }) =>
      openOutput(db(), assetStorageOf(env()), actor, {
        caseId: params.id,
        assetId: params.assetId,
        download: query.download === "1",
        range: header("range"),
        ifRange: header("if-range"),
      }),
    file: outputFile,
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/evidence",
    audience: "user",
    // An export writes an audit row on every case in it (decision 029).
    refuseCrossSite: true,
    summary: "One signed evidence packet for a queue filter's cases (the list's filters; oldest first, at most 200)",
    query: evidenceFilterSchema,
    success: [200],
    errors: [503],
    handler: ({ actor, query }) => exportFilterEvidence(db(), actor, query, env()),
    file: evidenceFile,
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/cases/export",
    audience: "user",
    // An export writes an audit row (decision 063), so a cross-site page cannot make one.
    refuseCrossSite: true,
    summary: "CSV of a queue view's cases (the list's filters, search and order; its first 5,000 at most)",
    query: queueExportSchema,
    success: [200],
    handler: ({ actor, query }) => exportQueueCsv(db(), actor, { ...query, limit: 50 }),
    file: csvFile((file: Awaited<ReturnType<typeof exportQueueCsv>>) => ({
      "X-Truncated": file.truncated ? "true" : "false",
    })),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/evidence/public-key",
    audience: "user",
    summary: "The public key evidence packets are signed with (PEM) and its key id",
    success: [200],
    errors: [503],
    handler: async ({ actor }) => evidencePublicKey(actor, env()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/reconcile",
    audience: "user",
    summary: "Attach a discovered job, or confirm no job exists",
    params: idParams,
    body: reconcileSchema,
    success: [200],
    handler: ({ actor, params, body }) => reconcileCase(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/approve",
    audience: "user",
    summary: "Approve the stage's recovery action",
    params: idParams,
    body: approveSchema,
    success: [200],
    handler: ({ actor, params, body }) => approveCase(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/review",
    audience: "user",
    summary: "Reject or escalate",
    params: idParams,
    body: reviewSchema,
    success: [200],
    handler: ({ actor, params, body }) => reviewCase(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/accept-failure",
    audience: "user",
    summary: "Close a proven failure",
    params: idParams,
    body: evidenceOnlySchema,
    success: [200],
    handler: ({ actor, params, body }) => acceptFailure(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/accept-outputs-lost",
    audience: "user",
    summary: "Close a delivery whose outputs the provider deleted (the hold stays for finance)",
    params: idParams,
    body: evidenceOnlySchema,
    success: [200],
    handler: ({ actor, params, body }) => acceptOutputsLost(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/notes",
    audience: "user",
    summary: "Add a note",
    params: idParams,
    body: noteSchema,
    success: [200],
    handler: ({ actor, params, body }) => addNote(db(), actor, params.id, body, env()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/notifications/resend",
    audience: "user",
    summary:
      "Send the case's given-up producer notifications again now (audited); 409 nothing_to_resend or " +
      "endpoint_disabled, 429 past 3 resends of a case an hour",
    params: idParams,
    success: [200],
    handler: ({ actor, params }) => resendCaseNotifications(db(), actor, params.id, resendOptions()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/assign",
    audience: "user",
    summary: "Assign to a reviewer (or null)",
    params: idParams,
    body: assignSchema,
    success: [200],
    handler: ({ actor, params, body }) => assignCase(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/bulk",
    audience: "user",
    summary:
      "Approve, reject, escalate, assign, note or accept failure for many cases: a dry run (count, money, " +
      "skipped cases with reasons, a token), then the execution of exactly that preview with its token",
    body: bulkRequestSchema,
    success: [200],
    handler: async ({ actor, body }): Promise<BulkDryRun | BulkExecution> =>
      body.mode === "dry_run"
        ? dryRunBulk(db(), actor, body, env().BULK_APPROVE_LIMIT)
        : executeBulk(db(), actor, body, env()),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/cases/{id}/replacement-requests",
    audience: "user",
    summary: "Request a replacement generation",
    params: idParams,
    body: replacementRequestSchema,
    success: [200],
    handler: ({ actor, params, body }) =>
      requestReplacement(db(), actor, params.id, body, { ttlSeconds: env().REPLACEMENT_TTL_SECONDS }),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/holds",
    audience: "user",
    summary:
      "Holds of one status, a page at a time; of one producer, or of operations whose ID is or starts with `operation` (finance)",
    query: listHoldsSchema,
    success: [200],
    handler: ({ actor, query }) => listHolds(db(), actor, query),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/holds/{id}/settle",
    audience: "user",
    summary: "Settle a hold (partial: rest released; above: overage)",
    params: idParams,
    body: settleSchema,
    success: [200],
    handler: ({ actor, params, body }) => resolveHold(db(), actor, params.id, { kind: "settle", ...body }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/holds/{id}/release",
    audience: "user",
    summary: "Release a hold with evidence of no charge",
    params: idParams,
    body: releaseSchema,
    success: [200],
    handler: ({ actor, params, body }) => resolveHold(db(), actor, params.id, { kind: "release", ...body }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/holds/{id}/write-off",
    audience: "user",
    summary: "Write a hold off for a reason while its send's outcome is unknown (DESIGN rule 18)",
    params: idParams,
    body: writeOffSchema,
    success: [200],
    handler: ({ actor, params, body }) =>
      resolveHold(db(), actor, params.id, { kind: "write_off", note: body.reason, evidence: body.evidence }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/holds/{id}/late-charge/acknowledge",
    audience: "user",
    summary: "Acknowledge a charge the provider proved after the hold's release (DESIGN rule 18)",
    params: idParams,
    body: lateChargeDecisionSchema,
    success: [200],
    handler: ({ actor, params, body }) => acknowledgeLateCharge(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/replacement-requests/{id}/authorize",
    audience: "user",
    summary: "Authorise (four-eyes, finance)",
    params: idParams,
    body: replacementDecisionSchema,
    success: [200],
    errors: [503],
    // The worker's adapters: the same provider accounts, and the same pacing, as every status check.
    handler: ({ actor, params, body }) =>
      authorizeReplacement(db(), actor, params.id, body, { adapters: () => processWorkerContext().adapters }),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/replacement-requests/{id}/decline",
    audience: "user",
    summary: "Decline a replacement request",
    params: idParams,
    body: replacementDecisionSchema,
    success: [200],
    handler: ({ actor, params, body }) => declineReplacement(db(), actor, params.id, body),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/overview",
    audience: "user",
    summary:
      "Open cases, money on hold, review latency and alerts (what the overview page shows), of one producer or all",
    query: overviewQuerySchema,
    success: [200],
    handler: ({ actor, query }) =>
      overviewStats(db(), actor, {
        alertWindowMinutes: env().ALERT_WINDOW_MINUTES,
        alertThreshold: env().ALERT_UNCERTAIN_THRESHOLD,
        producers: producersOf(query.producer),
      }),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/alerts/firings",
    audience: "user",
    summary: "Alert firings, newest first, with the figures each was judged on and how its messages fared",
    query: listAlertFiringsSchema,
    success: [200],
    handler: ({ actor, query }) => listAlertFirings(db(), actor, query),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/alerts/settings",
    audience: "user",
    summary: "Alert rules and destinations (admin; secrets are never returned)",
    success: [200],
    handler: ({ actor }) => listAlertSettings(db(), actor),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/alerts/rules",
    audience: "user",
    summary: "Create an alert rule, or change one (with its id) (admin)",
    body: saveAlertRuleSchema,
    success: [200],
    handler: ({ actor, body }) => saveAlertRule(db(), actor, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/alerts/destinations",
    audience: "user",
    summary: "Create an alert destination (a new webhook's signing secret is returned once), or change one (admin)",
    body: alertDestinationBody,
    success: [200],
    handler: ({ actor, body }) => saveAlertDestination(db(), actor, body, { allow: webhookAllowListFromEnv(env()) }),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/export",
    audience: "user",
    summary: "CSV of holds or ledger entries for a date range (finance)",
    query: exportQuerySchema,
    success: [200],
    handler: ({ actor, query }) => exportFinanceCsv(db(), actor, query),
    // Authenticated, rate-limited, validated and refused like every route; only a success is a file.
    file: csvFile(),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/finance/usage-imports",
    audience: "user",
    summary:
      "Import a provider's usage or invoice export (CSV text): each new line settles or corrects its job's hold at the provider's charge; the same file again changes nothing (finance, every producer)",
    body: usageImportSchema,
    success: [200],
    handler: ({ actor, body }) => importUsageFile(db(), actor, body),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/usage-gap",
    audience: "user",
    summary:
      "Reserved, charged by the provider and the gap per provider, model, producer and day; unexplained lines (finance)",
    query: usageGapQuerySchema,
    success: [200],
    handler: ({ actor, query }) => usageGap(db(), actor, query),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/unexplained-charges",
    audience: "user",
    summary:
      "Charges no operation explains: unexplained usage lines and listed jobs no attempt owns, with their money and the best-matching operations; paged, by provider (finance, every producer)",
    query: unexplainedChargesQuerySchema,
    success: [200],
    handler: ({ actor, query }) => listUnexplainedCharges(db(), actor, query),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/finance/unexplained-charges/attach",
    audience: "user",
    summary:
      "Attach an unexplained job through the ownership rule to the send that made it (a case's uncertain submission, or an earlier send named by attemptId); its usage lines then settle or correct that send's hold (finance, every producer)",
    body: attachUnexplainedSchema,
    success: [200],
    handler: ({ actor, body }) => attachUnexplainedCharge(db(), actor, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/finance/provider-jobs/move",
    audience: "user",
    summary:
      "Move a provider job from the send that records it to the send that made it: the wrong hold's adjustments are reversed and the job's usage lines correct the right one (finance, every producer)",
    body: moveJobSchema,
    success: [200],
    handler: ({ actor, body }) => moveJobToSend(db(), actor, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/finance/unexplained-charges/known-outside",
    audience: "user",
    summary:
      "Explain a charge as made outside the product, with a reason: its usage lines are booked as outside charges so the ledger equals the invoice (finance, every producer)",
    body: knownOutsideSchema,
    success: [200],
    handler: ({ actor, body }) => markChargeKnownOutside(db(), actor, body),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/ledger-versus-invoice",
    audience: "user",
    summary:
      "Per provider and currency, the imported usage lines' total beside what the ledger charged for them, and what is still unexplained (finance, every producer)",
    query: ledgerVersusInvoiceQuerySchema,
    success: [200],
    handler: async ({ actor, query }) => ({ rows: await ledgerVersusInvoice(db(), actor, query) }),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/holds-not-invoiced",
    audience: "user",
    summary:
      "The holds the ledger charged that no imported usage line names, newest first, 50 a page: the sends behind notOnInvoiceMicros (finance, every producer)",
    query: holdsNotInvoicedQuerySchema,
    success: [200],
    handler: async ({ actor, query }) => ({ holds: await listHoldsNotInvoiced(db(), actor, query) }),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/finance/spend-limits",
    audience: "user",
    summary: "Spend limits on replacements, each with its use in the rolling hour and day (finance)",
    success: [200],
    handler: async ({ actor }) => ({ limits: await listSpendLimits(db(), actor) }),
  }),
  apiRoute({
    method: "PUT",
    path: "/api/v1/finance/spend-limits",
    audience: "user",
    summary: "Set a spend limit per currency (and producer), or clear it with both figures null (finance)",
    body: spendLimitSchema,
    success: [200],
    handler: ({ actor, body }) => setSpendLimit(db(), actor, body),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/admin/provider-pace",
    audience: "user",
    summary: "Each provider's request rate shared by every worker, and a Retry-After still running (admin)",
    success: [200],
    handler: async ({ actor }) => ({ providers: await listProviderPaces(db(), actor) }),
  }),
  apiRoute({
    method: "PUT",
    path: "/api/v1/admin/provider-pace",
    audience: "user",
    summary: "Set or clear (null) a provider's request rate for every worker (admin)",
    body: providerPaceSchema,
    success: [200],
    handler: ({ actor, body }) => saveProviderPace(db(), actor, body),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/admin/provider-breakers",
    audience: "user",
    summary:
      "Each provider's unknown-outcome breaker (threshold, window, minimum) and whether it pauses sends now (admin)",
    success: [200],
    handler: async ({ actor }) => ({ providers: await listProviderBreakers(db(), actor) }),
  }),
  apiRoute({
    method: "PUT",
    path: "/api/v1/admin/provider-breakers",
    audience: "user",
    summary: "Set a provider's unknown-outcome breaker, or remove it with `off: true` (admin)",
    body: providerBreakerSchema,
    success: [200],
    handler: ({ actor, body }) => saveProviderBreaker(db(), actor, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/admin/provider-breakers/{provider}/resume",
    audience: "user",
    summary: "Reopen a provider its breaker paused; earlier outcomes stop counting (admin)",
    params: providerParams,
    success: [200],
    handler: ({ actor, params }) => resumeProviderBreaker(db(), actor, params.provider),
  }),
  apiRoute({
    method: "GET",
    path: "/api/v1/admin/retention",
    audience: "user",
    summary: "The retention policy (global and per producer, days after resolution or off) and the next run (admin)",
    success: [200],
    handler: ({ actor }) => getRetentionPolicy(db(), actor),
  }),
  apiRoute({
    method: "PUT",
    path: "/api/v1/admin/retention",
    audience: "user",
    summary:
      'Set the global retention policy (producer null) or a producer\'s own: days, null for off, or "global" to follow the global one (admin)',
    body: retentionPolicySchema,
    success: [200],
    handler: ({ actor, body }) => saveRetentionPolicy(db(), actor, body),
  }),
  apiRoute({
    method: "POST",
    path: "/api/v1/admin/retention/dry-run",
    audience: "user",
    summary: "What a retention run now would redact: cases, the oldest resolution among them, video bytes (admin)",
    success: [200],
    handler: ({ actor }) => dryRunRetention(db(), actor),
  }),

  // Workers (worker tokens): claim and execute approved actions.
  apiRoute({
    method: "POST",
    path: "/api/worker/tick",
    audience: "worker",
    direct: true,
    summary: "Claim ready actions and carry them out, within the tick's budget",
    // The worker token is verified first, before the body is even read.
    body: tickSchema,
    success: [200],
    handler: async ({ actor, body }) => {
      const worker = { ...requireWorker(actor), workerId: body.workerId };
      const { claimed, results } = await runTick(processWorkerContext(), worker, { maxTasks: body.maxTasks });
      return { claimed, results };
    },
  }),
] as const;

type Entry = (typeof API_ROUTES)[number];
export type RoutePath = Entry["path"];
/** "METHOD path", one per table entry (the matrix's and the docs' name for a route). */
export type RouteKey = KeyOf<Entry>;
type KeyOf<E> = E extends { method: infer M extends string; path: infer P extends string } ? `${M} ${P}` : never;

/** The methods a route file exports for its path: exactly the table's, each as Next.js calls it. */
export type RouteHandlers<P extends RoutePath> = { [E in Extract<Entry, { path: P }> as E["method"]]: RouteHandler };

/** What `app/api/<path>/route.ts` exports: `export const { GET, POST } = routeHandlers("/api/v1/cases")`. */
export function routeHandlers<P extends RoutePath>(path: P): RouteHandlers<P> {
  const routes = (API_ROUTES as readonly ApiRoute[]).filter((route) => route.path === path);
  if (routes.length === 0) throw new Error(`${path} is not in the route table`);
  return Object.fromEntries(routes.map((route) => [route.method, route.handle])) as RouteHandlers<P>;
}

export const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
