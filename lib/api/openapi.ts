import { z } from "zod";
import { JSON_TYPE } from "./api-request";
import type { ApiRoute } from "./api-route";
import { API_ROUTES } from "./routes";

const SECURITY = {
  producer: [{ apiKey: [] }],
  worker: [{ workerToken: [] }],
  user: [{ personalToken: [] }, { session: [] }],
  provider: [{ providerSignature: [] }],
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
        details: {
          type: "object",
          description:
            "The figures a refusal is about, e.g. a spend limit's limitMicros, usedMicros, requestedMicros and window",
          additionalProperties: { type: ["string", "number", "null"] },
        },
      },
    },
  },
};

/**
 * A sum of money is sent as the exact decimal string of its micro-units (decision 051): a JSON
 * number loses whole micro-units past 2^53, and a total of many holds can pass it.
 */
const microsTotalSchema = {
  type: "string",
  pattern: "^-?[0-9]+$",
  description: 'An exact sum of micro-units as a decimal string, e.g. "12500000" for 12.50 of the currency',
};

const TOTAL = { $ref: "#/components/schemas/MicrosTotal" };
const heldList = {
  type: "array",
  items: {
    type: "object",
    required: ["currency", "micros"],
    properties: { currency: { type: "string" }, micros: TOTAL },
  },
};
const listOf = (properties: Record<string, unknown>) => ({ type: "array", items: { type: "object", properties } });

/** Success bodies whose figures are sums, so a client's types say they are strings. */
const RESPONSE_SCHEMAS: Record<string, Record<string, unknown>> = {
  "GET /api/v1/overview": {
    type: "object",
    properties: {
      stages: listOf({ stage: { type: "string" }, open: { type: "integer" }, held: heldList }),
      needsDecision: listOf({ currency: { type: "string" }, count: { type: "integer" }, micros: TOTAL }),
      chargedAfterRelease: listOf({ currency: { type: "string" }, count: { type: "integer" }, micros: TOTAL }),
      outputsExpiringSoon: { type: "object", properties: { count: { type: "integer" }, held: heldList } },
      inFlight: { type: "object", properties: { held: heldList } },
      heldOverTime: listOf({ day: { type: "string" }, currency: { type: "string" }, micros: TOTAL }),
    },
  },
};

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

/** Path parameters are the path's `{name}` segments; query parameters come from the query's schema. */
function parameters(op: ApiRoute) {
  const path = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const queryShape = op.query
    ? ((jsonSchema(op.query) as { properties?: Record<string, unknown> }).properties ?? {})
    : {};
  const query = Object.entries(queryShape).map(([name, schema]) => ({ name, in: "query", required: false, schema }));
  return [...path, ...query];
}

/**
 * OpenAPI 3.1 (JSON Schema 2020-12, which zod emits natively) of exactly the route table, built
 * from the same zod schemas the routes use.
 */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of API_ROUTES as readonly ApiRoute[]) {
    const item = paths[op.path] ?? {};
    paths[op.path] = item;
    const responses: Record<string, unknown> = {};
    for (const status of op.success)
      responses[String(status)] = {
        description: "OK",
        content: {
          [op.responseType]: {
            schema:
              op.responseType === JSON_TYPE
                ? (RESPONSE_SCHEMAS[`${op.method} ${op.path}`] ?? { type: "object" })
                : { type: "string" },
          },
        },
      };
    for (const status of [400, 401, 403, 404, 409, 413, 415, 422, 429, ...op.errors]) {
      responses[String(status)] = {
        description: "Error",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    item[op.method.toLowerCase()] = {
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
      description:
        "Producers park ambiguous paid video jobs; reviewers and finance decide their recovery. A person " +
        "limited to some producers reads and decides only theirs: another producer's case, hold or " +
        "replacement request answers 404 not_found, lists and figures leave other producers out, and " +
        "the alert firings answer 403.",
    },
    paths,
    components: {
      schemas: { Error: errorSchema, MicrosTotal: microsTotalSchema },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "Producer API key (vrk_…)" },
        personalToken: {
          type: "http",
          scheme: "bearer",
          description: "Personal access token (vrp_…), acts as its user",
        },
        workerToken: { type: "http", scheme: "bearer", description: "Worker token (vrw_…)" },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token" },
        providerSignature: {
          type: "apiKey",
          in: "header",
          name: "webhook-signature",
          description:
            "The provider's own signature over the raw body: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) for Replicate; Ed25519 (X-Fal-Webhook-Request-Id, -User-Id, -Timestamp, -Signature) for fal",
        },
      },
    },
  };
}
