import { z } from "zod";
import { exportQuerySchema } from "@/lib/validation/finance";
import { listCasesSchema } from "@/lib/validation/list-cases";
import { idParams, operationParams, replacementsQuery } from "@/lib/validation/params";
import { parkCaseSchema } from "@/lib/validation/park-case";
import {
  approveSchema,
  assignSchema,
  evidenceOnlySchema,
  noteSchema,
  reconcileSchema,
  releaseSchema,
  replacementDecisionSchema,
  replacementRequestSchema,
  reviewSchema,
  settleSchema,
} from "@/lib/validation/review";
import type { Audience } from "./authenticate-request";

type Operation = {
  method: "get" | "post";
  path: string;
  audience: Audience;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodObject;
  success: number[];
  /** Error statuses beyond the common ones, e.g. 503 when a provider must be asked first. */
  errors?: number[];
};

/** Every public JSON route; the OpenAPI document and the route tests both read this list. */
export const API_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/v1/overview",
    audience: "user",
    summary: "Open cases, money on hold, review latency and alerts (what the overview page shows)",
    success: [200],
  },
  {
    method: "get",
    path: "/api/v1/finance/export",
    audience: "user",
    summary: "CSV of holds or ledger entries for a date range (finance)",
    query: exportQuerySchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases",
    audience: "producer",
    summary: "Park a case (idempotent)",
    body: parkCaseSchema,
    success: [201, 200],
  },
  {
    method: "get",
    path: "/api/v1/cases/by-operation/{operationId}",
    audience: "producer",
    summary: "The case of one of your operations",
    params: operationParams,
    success: [200],
  },
  {
    method: "get",
    path: "/api/v1/replacements",
    audience: "producer",
    summary: "Authorised replacements to submit",
    query: replacementsQuery,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/replacements/{id}/ack",
    audience: "producer",
    summary: "Acknowledge an authorised replacement",
    params: idParams,
    success: [200],
  },
  {
    method: "get",
    path: "/api/v1/cases",
    audience: "user",
    summary: "List cases (filters, keyset pages)",
    query: listCasesSchema,
    success: [200],
  },
  {
    method: "get",
    path: "/api/v1/cases/{id}",
    audience: "user",
    summary: "A case with hold, lineage and timeline",
    params: idParams,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/reconcile",
    audience: "user",
    summary: "Attach a discovered job, or confirm no job exists",
    params: idParams,
    body: reconcileSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/approve",
    audience: "user",
    summary: "Approve the stage's recovery action",
    params: idParams,
    body: approveSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/review",
    audience: "user",
    summary: "Reject or escalate",
    params: idParams,
    body: reviewSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/accept-failure",
    audience: "user",
    summary: "Close a proven failure",
    params: idParams,
    body: evidenceOnlySchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/accept-outputs-lost",
    audience: "user",
    summary: "Close a delivery whose outputs the provider deleted (the hold stays for finance)",
    params: idParams,
    body: evidenceOnlySchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/notes",
    audience: "user",
    summary: "Add a note",
    params: idParams,
    body: noteSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/assign",
    audience: "user",
    summary: "Assign to a reviewer (or null)",
    params: idParams,
    body: assignSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/cases/{id}/replacement-requests",
    audience: "user",
    summary: "Request a replacement generation",
    params: idParams,
    body: replacementRequestSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/holds/{id}/settle",
    audience: "user",
    summary: "Settle a hold (partial: rest released; above: overage)",
    params: idParams,
    body: settleSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/holds/{id}/release",
    audience: "user",
    summary: "Release a hold with evidence of no charge",
    params: idParams,
    body: releaseSchema,
    success: [200],
  },
  {
    method: "post",
    path: "/api/v1/replacement-requests/{id}/authorize",
    audience: "user",
    summary: "Authorise (four-eyes, finance)",
    params: idParams,
    body: replacementDecisionSchema,
    success: [200],
    errors: [503],
  },
  {
    method: "post",
    path: "/api/v1/replacement-requests/{id}/decline",
    audience: "user",
    summary: "Decline a replacement request",
    params: idParams,
    body: replacementDecisionSchema,
    success: [200],
  },
];

const SECURITY = {
  producer: [{ apiKey: [] }],
  worker: [{ workerToken: [] }],
  user: [{ personalToken: [] }, { session: [] }],
};

const errorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        issues: {
          type: "array",
          items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } },
        },
      },
    },
  },
};

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

function parameters(op: Operation) {
  const path = op.params
    ? Object.keys(op.params.shape).map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }))
    : [];
  const queryShape = op.query
    ? ((jsonSchema(op.query) as { properties?: Record<string, unknown> }).properties ?? {})
    : {};
  const query = Object.entries(queryShape).map(([name, schema]) => ({ name, in: "query", required: false, schema }));
  return [...path, ...query];
}

/** OpenAPI 3.1 (JSON Schema 2020-12, which zod emits natively) built from the same zod schemas the routes use. */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of API_OPERATIONS) {
    const item = paths[op.path] ?? {};
    paths[op.path] = item;
    const responses: Record<string, unknown> = {};
    for (const status of op.success)
      responses[String(status)] = {
        description: "OK",
        content: { "application/json": { schema: { type: "object" } } },
      };
    for (const status of [400, 401, 403, 404, 409, 413, 415, 422, 429, ...(op.errors ?? [])]) {
      responses[String(status)] = {
        description: "Error",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    item[op.method] = {
      summary: op.summary,
      security: SECURITY[op.audience],
      parameters: parameters(op),
      ...(op.body
        ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Video job recovery API",
      version: "1.0.0",
      description: "Producers park ambiguous paid video jobs; reviewers and finance decide their recovery.",
    },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "Producer API key (vrk_…)" },
        personalToken: {
          type: "http",
          scheme: "bearer",
          description: "Personal access token (vrp_…), acts as its user",
        },
        workerToken: { type: "http", scheme: "bearer", description: "Worker token (vrw_…)" },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token" },
      },
    },
  };
}
