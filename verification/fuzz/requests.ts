import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { z } from "zod";
import { replyResponse } from "@/lib/api/api-request";
import type { RouteHandler as Handler } from "@/lib/api/api-route";
import type { PrismaClient } from "@/lib/db/client";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { inspectJson } from "@/lib/validation/nul";
import { hasMalformedEscape, malformedUrlReply } from "@/server/malformed-url";

/**
 * Hostile-input fuzzing of every public route, shared by the integration test and the
 * stand-alone verification script. Requests go through the real route handlers in-process,
 * inside a Next request scope (so the session-cookie path and the sign-in routes run as in
 * production), against a real database.
 */

type Audience = "producer" | "user" | "worker" | "provider" | "metrics" | "auth";

export type FuzzRoute = {
  name: string;
  method: "GET" | "POST" | "PUT";
  path: string;
  audience: Audience;
  params: string[];
  queryKeys: string[];
  bodyKeys: string[] | null;
  /** True when a body would pass the route's schema; such bodies are never sent with a right-kind token. */
  acceptsBody: (value: unknown) => boolean;
  handler: Handler;
};

export type FuzzTokens = {
  producer: string;
  worker: string;
  /** A personal token of a user with every role: only ever sent where it is the wrong kind. */
  powerfulPersonal: string;
  /** A personal token of a user without roles: the right kind for reviewer routes, yet allowed nothing. */
  rolelessPersonal: string;
  revoked: string[];
  expired: string[];
  metricsToken: string;
  csrf?: { token: string; cookie: string };
};

export type FuzzRequest = {
  route: string;
  method: "GET" | "POST" | "PUT";
  url: string;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  body?: Uint8Array;
};

// ---------------------------------------------------------------- hostile values

const SQL = [
  "'; DROP TABLE cases; --",
  "' OR '1'='1",
  "1; SELECT pg_sleep(5)--",
  '" OR 1=1 --',
  "') UNION SELECT tokenHash FROM access_tokens --",
  "$1::text",
  "%' AND 1=0 UNION ALL SELECT NULL--",
];
const MARKUP = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(document.cookie)>",
  "javascript:alert(1)",
  '"><svg/onload=alert(1)>',
  "{{constructor.constructor('alert(1)')()}}",
  `${"$"}{7*7}`,
];
const ODD = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u0645evil",
  "💥".repeat(50),
  "../../../../etc/passwd",
  "%00",
  "%s%s%n",
  "NaN",
  "Infinity",
  "-0",
  "1e309",
  "null",
  "undefined",
  "true",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "__proto__",
  "constructor",
  "prototype",
  "sha256:",
  "vrk_",
  "\r\nX-Injected: 1",
];

const LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ude00\ud83d"];

function stringsUpTo(maxHuge: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...SQL, ...MARKUP, ...ODD) },
    { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 300 }) },
    { weight: 1, arbitrary: fc.uuid() },
    // Text PostgreSQL cannot store, hidden inside ordinary text where a prefix check would miss it.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...LONE_SURROGATES), fc.string({ maxLength: 20 }))
        .map(([before, lone, after]) => before + lone + after),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("a", "é", "<", "'", "\ud83d\ude00", "\\"), fc.integer({ min: 1_000, max: maxHuge }))
        .map(([c, n]) => c.repeat(Math.ceil(n / c.length))),
    },
  );
}

/** Hostile strings, some of them up to 80 KB (past the 64 KB body limit). */
export const hostileString: fc.Arbitrary<string> = stringsUpTo(80_000);
/** The same, capped at 8 KB: for URLs and headers, which servers cap long before the body limit. */
const hostileShortString: fc.Arbitrary<string> = stringsUpTo(8_000);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, -(2 ** 63), 4.9e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Any JSON-expressible hostile value, optionally nested. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom("__proto__", "constructor")), tie("value"), {
      maxKeys: 4,
    }),
    fc.integer({ min: 1_000, max: 12_000 }).map((n) => new Array<number>(n).fill(7)),
  ),
})).value;

const PROTO_KEYS = [
  '"__proto__":{"isAdmin":true,"roles":["admin"]}',
  '"constructor":{"prototype":{"polluted":"yes"}}',
  '"__proto__":null',
  '"prototype":{"toString":"x"}',
];

const encoder = new TextEncoder();
/** Lone surrogates replaced, so that a value can be percent-encoded into a URL. */
const wellFormed = (text: string) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
const utf8 = (text: string) => encoder.encode(text);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const INVALID_UTF8 = [
  [0xff, 0xfe],
  [0xc3, 0x28],
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate encoded as UTF-8
  [0xed, 0xbf, 0xbf],
  [0xc0, 0xaf], // overlong encodings of '/'
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xc0, 0x80], // an overlong NUL
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
].map((bytes) => Uint8Array.from(bytes));
/** The same bytes percent-encoded, as a path or query value carries them. */
const INVALID_UTF8_ESCAPES = INVALID_UTF8.map((bytes) =>
  [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
);
/**
 * Percent-escapes that do not decode, as a path segment may carry them: invalid UTF-8 (above), a `%`
 * without two hex digits, a truncated sequence, the old `%u` form. Next.js answers such a path with
 * a plain-text 500; the HTTP entry answers it 400 first (server/malformed-url.ts).
 */
export const MALFORMED_ESCAPES = [...INVALID_UTF8_ESCAPES, "%", "%zz", "%E0%A4%A", "100%", "%%41", "%u00e9", "a%2"];
/** Lone surrogates written as JSON escapes in the body's text (a parser turns them into unstorable strings). */
const SURROGATE_ESCAPE_BODIES = [
  '{"note":"\\ud800"}',
  '{"\\udc00":"x"}',
  '["\\ud800\\u0041"]',
  '{"evidence":{"note":"a\\udfff\\ud800b"}}',
  '{"operationId":"op-\\ud83d","attemptId":"\\ude00"}',
  '{"note":"\\u0000"}',
];

/** An object shaped like the route's body (its keys), with hostile values, dropped and extra keys. */
function shapedObject(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const base = keys.length ? keys : ["evidence", "note", "action"];
  return fc
    .tuple(
      fc.subarray(base),
      fc.array(hostileValue, { minLength: base.length, maxLength: base.length }),
      fc.dictionary(
        fc.oneof(hostileString, fc.constantFrom("role", "admin", "id", "userId", "note\ud800", "\udc00evidence")),
        hostileValue,
        {
          maxKeys: 3,
        },
      ),
    )
    .map(([kept, values, extra]) => {
      const out: Record<string, unknown> = {};
      kept.forEach((key, i) => {
        Object.defineProperty(out, key, { value: values[i], enumerable: true, writable: true, configurable: true });
      });
      for (const [key, value] of Object.entries(extra)) {
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    });
}

type Body = { contentType: string | null; bytes: Uint8Array; json?: unknown };

const jsonBody = (value: unknown): Body => ({
  contentType: "application/json",
  bytes: utf8(JSON.stringify(value)),
  json: value,
});

function bodyArbitrary(route: FuzzRoute): fc.Arbitrary<Body> {
  const keys = route.bodyKeys ?? [];
  const raw = (text: string | Uint8Array): Body => ({
    contentType: "application/json",
    bytes: typeof text === "string" ? utf8(text) : text,
  });
  const withContentType = fc
    .tuple(
      fc.oneof(shapedObject(keys), hostileValue),
      fc.constantFrom(
        null,
        "",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "application/json-patch+json",
        "text/json",
        "application/xml",
        "APPLICATION/JSON",
        "application/json; charset=latin1",
        "application/json;charset=utf-8",
      ),
    )
    .map(([value, contentType]) => ({ ...jsonBody(value), contentType }));
  return fc.oneof(
    { weight: 6, arbitrary: shapedObject(keys).map(jsonBody) },
    { weight: 3, arbitrary: hostileValue.map(jsonBody) },
    { weight: 2, arbitrary: withContentType },
    {
      // oversized: a valid-looking object padded past (or just under) 64 KB
      weight: 2,
      arbitrary: fc
        .tuple(shapedObject(keys), fc.integer({ min: 60_000, max: 80_000 }))
        .map(([obj, size]) => jsonBody({ ...obj, padding: "x".repeat(size) })),
    },
    {
      // deep nesting, written as text so that building it cannot overflow our own stack
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 100, max: 30_000 }), fc.constantFrom("[", '{"a":'), fc.boolean())
        .map(([depth, open, closed]) => {
          const close = open === "[" ? "]" : "}";
          return raw(`${open.repeat(depth)}1${closed ? close.repeat(depth) : ""}`);
        }),
    },
    {
      // prototype-pollution keys, which a JS object literal cannot carry as own keys
      weight: 2,
      arbitrary: fc
        .tuple(shapedObject(keys), fc.subarray(PROTO_KEYS, { minLength: 1 }))
        .map(([obj, extra]) => raw(`{${[...extra, JSON.stringify(obj).slice(1, -1)].filter(Boolean).join(",")}}`)),
    },
    {
      // invalid UTF-8 inside an otherwise valid JSON string, or raw bytes
      weight: 2,
      arbitrary: fc.oneof(
        fc
          .tuple(fc.constantFrom(...INVALID_UTF8), fc.constantFrom(...(keys.length ? keys : ["note"])))
          .map(([bad, key]) => raw(concat(utf8(`{"${key}":"`), bad, utf8('"}')))),
        fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes) => raw(bytes)),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          "",
          "{",
          "}",
          "{'a':1}",
          '{"a":1,}',
          "NaN",
          "undefined",
          "a=b&c=d",
          "<xml/>",
          '{"a":1}{"b":2}',
          "\ufeff{}",
          "[",
          "\u0000",
          "1e99999",
          ...SURROGATE_ESCAPE_BODIES,
        )
        .map(raw),
    },
  );
}

// ---------------------------------------------------------------- tokens and headers

function authorizationArbitrary(
  route: FuzzRoute,
  tokens: FuzzTokens,
): fc.Arbitrary<{ header?: string; right: boolean }> {
  const wrongKind = {
    producer: [tokens.worker, tokens.powerfulPersonal, tokens.rolelessPersonal],
    user: [tokens.producer, tokens.worker],
    worker: [tokens.producer, tokens.powerfulPersonal, tokens.rolelessPersonal],
    // Signed by the provider alone: no bearer token of ours is ever the right kind.
    provider: [tokens.producer, tokens.worker, tokens.powerfulPersonal],
    metrics: [tokens.producer, tokens.worker, tokens.powerfulPersonal],
    auth: [tokens.producer, tokens.worker, tokens.powerfulPersonal],
  }[route.audience];
  const rightKind = { producer: tokens.producer, worker: tokens.worker, user: tokens.rolelessPersonal }[
    route.audience as "producer" | "worker" | "user"
  ] as string | undefined;
  const bearer = (t: string) => `Bearer ${t}`;
  type Choice = { header?: string; right: boolean };
  const options: fc.Arbitrary<Choice>[] = [
    fc.constant({ right: false }),
    fc
      .constantFrom(
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Token abc",
        "Bearer a b",
        "bearer",
        "Digest x",
        "Bearer\t",
      )
      .map((header) => ({ header, right: false })),
    fc
      .tuple(
        fc.constantFrom("vrk_", "vrp_", "vrw_", "vrx_", "VRK_", ""),
        fc.string({ unit: "grapheme-ascii", maxLength: 300 }),
      )
      .map(([prefix, rest]) => ({ header: bearer(`${prefix}${rest.replace(/\s/g, "")}` || "x"), right: false })),
    fc
      .constantFrom(...wrongKind, ...tokens.revoked, ...tokens.expired)
      .map((t) => ({ header: bearer(t), right: false })),
    fc
      .constantFrom(...wrongKind, ...tokens.revoked)
      .map((t) => ({ header: bearer(`${t.slice(0, -1)}${t.endsWith("a") ? "b" : "a"}`), right: false })),
  ];
  // Half of the requests carry a token the route accepts, so that queries and bodies get parsed at all.
  const refused = fc.oneof(...options);
  if (!rightKind) return refused;
  return fc.oneof(refused, fc.constant<Choice>({ header: bearer(rightKind), right: true }));
}

const asciiHeaderValue = fc.string({ unit: "grapheme-ascii", maxLength: 200 }).map((s) => s.replace(/[\r\n]/g, ""));

function extraHeaders(tokens: FuzzTokens): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      cookie: fc.oneof(
        fc.constant("next-auth.session-token=garbage"),
        asciiHeaderValue.map((v) => `next-auth.session-token=${encodeURIComponent(v)}`),
        fc.constant(`__Secure-next-auth.session-token=${"a".repeat(4000)}`),
        fc.constant(
          "next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA",
        ),
        ...(tokens.csrf ? [fc.constant(tokens.csrf.cookie)] : []),
      ),
      origin: fc.constantFrom("https://evil.example", "null", "not a url", "http://localhost"),
      "sec-fetch-site": fc.constantFrom("cross-site", "same-origin", "none"),
      "x-forwarded-for": fc.oneof(fc.ipV4(), fc.ipV6(), asciiHeaderValue),
      "x-forwarded-host": fc.constantFrom("evil.example", "localhost"),
      "content-length": fc.constantFrom("99999999", "-1", "abc", "0"),
      accept: fc.constantFrom("text/html", "*/*", "application/xml"),
    },
    { requiredKeys: [] },
  );
}

// ---------------------------------------------------------------- requests

function paramArbitrary(name: string, knownIds: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileShortString },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: knownIds.length ? fc.constantFrom(...knownIds) : fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, 42, ["a", "b"], { [name]: "x" }) },
    // A percent-escape that does not decode, written into the segment as is: the entry answers it.
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_ESCAPES).map((encoded) => new RawSegment(encoded)) },
  );
}

/** A path segment written into the URL exactly as is (not percent-encoded again). */
class RawSegment {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

function queryArbitrary(keys: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...keys, "__proto__", "constructor", "limit", "cursor"), hostileShortString);
  const value = fc.oneof(hostileShortString, hostileNumber.map(String));
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.array(fc.tuple(key, value), { maxLength: 8 }).map((pairs) => new URLSearchParams(pairs).toString()),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom("%", "%E0%A4%A", "%ff%fe", "a=%zz", "&&&", "=", "limit=1&limit=2", "sort[]=x"),
        fc
          .tuple(fc.constantFrom(...keys, "cursor", "q"), fc.constantFrom(...INVALID_UTF8_ESCAPES))
          .map(([key, encoded]) => `${encodeURIComponent(key)}=${encoded}`),
      ),
    },
  );
}

const AUTH_ACTIONS = [
  "session",
  "csrf",
  "providers",
  "signin",
  "callback",
  "signout",
  "error",
  "_log",
  "verify-request",
];

export function hostileRequest(
  route: FuzzRoute,
  tokens: FuzzTokens,
  knownIds: string[] = [],
): fc.Arbitrary<FuzzRequest> {
  if (route.audience === "auth") return authRequest(route, tokens);
  const params = fc.record(Object.fromEntries(route.params.map((name) => [name, paramArbitrary(name, knownIds)])));
  const body: fc.Arbitrary<Body | undefined> =
    route.method !== "GET"
      ? fc.oneof({ weight: 12, arbitrary: bodyArbitrary(route) }, fc.constant(undefined))
      : fc.constant(undefined);
  return fc
    .record({
      auth:
        route.audience === "metrics"
          ? fc.oneof(
              fc.constant({ right: false } as { header?: string; right: boolean }),
              authorizationArbitrary(route, tokens),
              fc.constant({ header: `Bearer ${tokens.metricsToken}x`, right: false }),
              fc.constant({ header: tokens.metricsToken, right: false }),
            )
          : authorizationArbitrary(route, tokens),
      params,
      query: queryArbitrary(route.queryKeys),
      headers: extraHeaders(tokens),
      body,
    })
    .filter(({ auth, body }) => {
      // A right-kind token must never carry a body the schema would accept: nothing may succeed.
      if (!auth.right || !body) return true;
      if (body.json === undefined) return true;
      return !route.acceptsBody(body.json);
    })
    .map(({ auth, params, query, headers, body }) => {
      const all: Record<string, string> = { ...headers };
      if (auth.header !== undefined) all.authorization = auth.header;
      if (body?.contentType) all["content-type"] = body.contentType;
      if (!body) delete all["content-length"];
      const pathText = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        const value = params[name];
        return value instanceof RawSegment ? value.text : encodeURIComponent(wellFormed(String(value ?? "")));
      });
      for (const [name, value] of Object.entries(params)) if (value instanceof RawSegment) params[name] = value.text;
      return {
        route: route.name,
        method: route.method,
        url: `http://localhost${pathText}${query ? `?${query}` : ""}`,
        params,
        headers: all,
        body: body?.bytes,
      };
    });
}

function authRequest(route: FuzzRoute, tokens: FuzzTokens): fc.Arbitrary<FuzzRequest> {
  const form = fc
    .record(
      {
        email: fc.oneof(hostileShortString, fc.constantFrom("admin@example.com", "a@b.c", "x@localhost")),
        password: hostileShortString,
        csrfToken: fc.oneof(hostileShortString, fc.constant(tokens.csrf?.token ?? "x")),
        callbackUrl: fc.constantFrom("https://evil.example", "javascript:alert(1)", "/cases", "//evil.example"),
        json: fc.constantFrom("true", "false"),
        constructor: hostileShortString,
      },
      { requiredKeys: [] },
    )
    .map((fields) => new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString());
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: form.map((text) => ({ contentType: "application/x-www-form-urlencoded", bytes: utf8(text) })),
    },
    { weight: 1, arbitrary: bodyArbitrary({ ...route, bodyKeys: ["email", "password", "csrfToken"] }) },
  );
  return fc
    .record({
      method: fc.constantFrom("GET" as const, "POST" as const),
      segments: fc.array(
        fc
          .oneof({ weight: 3, arbitrary: fc.constantFrom(...AUTH_ACTIONS, "credentials", "oidc") }, hostileShortString)
          .filter((segment) => segment.length > 0),
        { minLength: 1, maxLength: 3 },
      ),
      query: queryArbitrary(["callbackUrl", "error", "csrf"]),
      headers: extraHeaders(tokens),
      auth: authorizationArbitrary(route, tokens),
      body,
    })
    .map(({ method, segments, query, headers, auth, body }) => {
      const all: Record<string, string> = { ...headers };
      delete all["content-length"];
      if (auth.header !== undefined) all.authorization = auth.header;
      if (method === "POST" && body.contentType) all["content-type"] = body.contentType;
      return {
        route: route.name,
        method,
        url: `http://localhost/api/auth/${segments.map((s) => encodeURIComponent(wellFormed(s))).join("/")}${query ? `?${query}` : ""}`,
        params: { nextauth: segments },
        headers: all,
        body: method === "POST" ? body.bytes : undefined,
      };
    });
}

// ---------------------------------------------------------------- routes and request scope

function keysOf(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, unknown>;
    anyOf?: { properties?: Record<string, unknown> }[];
    oneOf?: { properties?: Record<string, unknown> }[];
  };
  const props = [
    json.properties,
    ...(json.anyOf ?? []).map((s) => s.properties),
    ...(json.oneOf ?? []).map((s) => s.properties),
  ];
  return [...new Set(props.flatMap((p) => Object.keys(p ?? {})))];
}

let scope:
  | { run: <T>(req: Request, fn: () => Promise<T>) => Promise<T>; NextRequest: new (req: Request) => Request }
  | undefined;

/** Next's request scope (headers(), cookies()) around an in-process call, as the server provides it. */
async function requestScope() {
  if (scope) return scope;
  const g = globalThis as { AsyncLocalStorage?: unknown };
  g.AsyncLocalStorage ??= AsyncLocalStorage;
  const work = await import("next/dist/server/app-render/work-async-storage.external.js");
  const unit = await import("next/dist/server/app-render/work-unit-async-storage.external.js");
  const store = await import("next/dist/server/async-storage/request-store.js");
  const { NextRequest } = await import("next/server");
  scope = {
    NextRequest: NextRequest as unknown as new (req: Request) => Request,
    run: <T>(req: Request, fn: () => Promise<T>) => {
      const url = new URL(req.url);
      const workStore = { route: url.pathname, page: url.pathname, forceStatic: false, dynamicShouldError: false };
      const requestStore = store.createRequestStoreForAPI(
        req as never,
        { pathname: url.pathname, search: url.search } as never,
        { tags: [], expirationsByCacheKind: new Map() } as never,
        () => {},
        undefined as never,
        undefined,
      );
      return work.workAsyncStorage.run(workStore as never, () => unit.workUnitAsyncStorage.run(requestStore, fn));
    },
  };
  return scope;
}

async function importRoute(appPath: string): Promise<Record<string, Handler>> {
  const file = path.resolve(process.cwd(), "app", ...appPath.split("/").filter(Boolean), "route.ts");
  return (await import(pathToFileURL(file).href)) as Record<string, Handler>;
}

/** Every route of the route table (through its route file), metrics and the sign-in routes, with their real handlers. */
export async function loadFuzzRoutes(): Promise<FuzzRoute[]> {
  await requestScope();
  // Loaded after the request scope exists: the table's modules bind Next's request storage on load.
  const { API_ROUTES } = await import("@/lib/api/routes");
  const routes: FuzzRoute[] = [];
  for (const op of API_ROUTES) {
    const mod = await importRoute(op.path.replace(/^\/api/, "api").replace(/\{(\w+)\}/g, "[$1]"));
    const handler = mod[op.method];
    if (!handler) throw new Error(`${op.path} exports no ${op.method}`);
    const body = op.body;
    routes.push({
      name: `${op.method} ${op.path}`,
      method: op.method,
      path: op.path,
      audience: op.audience,
      params: [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name ?? ""),
      queryKeys: keysOf(op.query),
      bodyKeys: body ? keysOf(body) : null,
      acceptsBody: (value) => (body ? body.safeParse(value).success : true),
      handler,
    });
  }
  const metrics = await importRoute("api/metrics");
  const auth = await importRoute("api/auth/[...nextauth]");
  const need = (h: Handler | undefined) => {
    if (!h) throw new Error("route handler missing");
    return h;
  };
  routes.push(
    {
      name: "GET /api/metrics",
      method: "GET",
      path: "/api/metrics",
      audience: "metrics",
      params: [],
      queryKeys: [],
      bodyKeys: null,
      acceptsBody: () => true,
      handler: need(metrics.GET),
    },
    {
      name: "GET|POST /api/auth/[...nextauth]",
      method: "POST",
      path: "/api/auth",
      audience: "auth",
      params: [],
      queryKeys: [],
      bodyKeys: null,
      acceptsBody: () => true,
      handler: async (req, context) => {
        const h = need(req.method === "GET" ? auth.GET : auth.POST);
        return h(req, context);
      },
    },
  );
  return routes;
}

/** Tokens for the fuzzer: valid ones only of a kind the route refuses, revoked, expired, or powerless. */
export async function createFuzzTokens(db: PrismaClient): Promise<FuzzTokens> {
  const everyRole = await db.user.create({
    data: {
      email: `fuzz-admin-${Date.now()}@example.com`,
      name: "fuzz admin",
      roles: ["admin", "reviewer", "finance", "operator"],
    },
  });
  const noRole = await db.user.create({
    data: { email: `fuzz-none-${Date.now()}@example.com`, name: "fuzz none", roles: [] },
  });
  const inactive = await db.user.create({
    data: { email: `fuzz-gone-${Date.now()}@example.com`, name: "fuzz gone", roles: ["admin"], active: false },
  });
  const make = (kind: "api_key" | "worker" | "personal", userId?: string, expiresAt?: Date) =>
    createAccessToken(db, "cli", { kind, name: `fuzz-${kind}`, userId, expiresAt });
  const past = new Date(Date.now() - 60_000);
  const revoked = [await make("api_key"), await make("worker"), await make("personal", everyRole.id)];
  await db.accessToken.updateMany({ where: { id: { in: revoked.map((t) => t.id) } }, data: { revokedAt: new Date() } });
  const expired = [
    await make("api_key", undefined, past),
    await make("worker", undefined, past),
    await make("personal", everyRole.id, past),
  ];
  const gone = await make("personal", inactive.id);
  return {
    producer: (await make("api_key")).secret,
    worker: (await make("worker")).secret,
    powerfulPersonal: (await make("personal", everyRole.id)).secret,
    rolelessPersonal: (await make("personal", noRole.id)).secret,
    revoked: revoked.map((t) => t.secret),
    expired: [...expired.map((t) => t.secret), gone.secret],
    metricsToken: process.env.METRICS_TOKEN ?? "",
  };
}

/** A real CSRF token and its cookie from the sign-in route, so fuzzed credential posts reach the password check. */
export async function fetchCsrf(routes: FuzzRoute[]): Promise<{ token: string; cookie: string } | undefined> {
  const auth = routes.find((r) => r.audience === "auth");
  if (!auth) return undefined;
  const res = await send(auth, {
    route: auth.name,
    method: "GET",
    url: "http://localhost/api/auth/csrf",
    params: { nextauth: ["csrf"] },
    headers: {},
  });
  const token = ((await res.json()) as { csrfToken?: string }).csrfToken;
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  return token && cookie ? { token, cookie } : undefined;
}

/** Builds the real Request (skipping header values no HTTP client could send) and calls the handler. */
export async function send(route: FuzzRoute, fr: FuzzRequest): Promise<Response> {
  const { run, NextRequest } = await requestScope();
  const headers = new Headers();
  for (const [key, value] of Object.entries(fr.headers)) {
    try {
      headers.set(key, value);
    } catch {
      // not a legal header value on the wire
    }
  }
  const init: RequestInit = { method: fr.method, headers };
  if (fr.body !== undefined) init.body = fr.body as Uint8Array<ArrayBuffer>;
  // The HTTP entry answers a path whose escapes do not decode before any route runs (Next.js would
  // answer it a plain-text 500), so that answer is what such a request gets here too.
  const malformed = malformedUrlReply(fr.url);
  if (malformed) return replyResponse(malformed);
  const plain = new Request(fr.url, init);
  const req = route.audience === "auth" ? new NextRequest(plain) : plain;
  try {
    return await run(req, () => route.handler(req, { params: Promise.resolve(fr.params) }));
  } catch (error) {
    // An exception escaping a route handler is answered by the server with a bare 500.
    return new Response(`uncaught: ${String(error).slice(0, 200)}`, { status: 500 });
  }
}

// ---------------------------------------------------------------- judging

/** Non-null when the body is not exactly `{ error: { code, message, issues? } }` (issues: `{ path, message }[]`). */
export function errorShapeProblem(json: unknown): string | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) return "not an object";
  const keys = Object.keys(json);
  if (keys.length !== 1 || keys[0] !== "error") return `top-level keys ${keys.join(",")}`;
  const error = (json as { error: unknown }).error;
  if (!error || typeof error !== "object" || Array.isArray(error)) return "error is not an object";
  const e = error as Record<string, unknown>;
  const extra = Object.keys(e).filter((k) => !["code", "message", "issues"].includes(k));
  if (extra.length) return `extra keys ${extra.join(",")}`;
  if (typeof e.code !== "string" || !e.code) return "code is not a string";
  if (typeof e.message !== "string" || !e.message) return "message is not a string";
  if (/prisma|postgres|invalid input syntax|\n\s+at /i.test(e.message))
    return `leaky message: ${e.message.slice(0, 120)}`;
  if ("issues" in e) {
    if (!Array.isArray(e.issues)) return "issues is not an array";
    for (const issue of e.issues) {
      if (!issue || typeof issue !== "object") return "issue is not an object";
      const i = issue as Record<string, unknown>;
      if (Object.keys(i).some((k) => k !== "path" && k !== "message")) return "issue has extra keys";
      if (typeof i.path !== "string" || typeof i.message !== "string") return "issue path/message not strings";
    }
  }
  return null;
}

/**
 * md5 of every application table's rows (each row as JSON, sorted), so any insert, update or
 * delete shows. Left out: `_prisma_migrations`, `rate_limit_buckets` (every request, even a refused
 * one, may count against a limit by design) and `access_tokens.last_used_at` (a presented valid
 * token records its use, at most once a minute, before the route refuses its kind).
 */
export async function tableChecksums(db: PrismaClient): Promise<Record<string, string>> {
  const tables = await db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
      AND table_name NOT IN ('_prisma_migrations', 'rate_limit_buckets')
    ORDER BY table_name`;
  const sums: Record<string, string> = {};
  for (const { table_name } of tables) {
    const rows = await db.$queryRawUnsafe<{ sum: string; n: bigint }[]>(
      `SELECT md5(coalesce(string_agg(r, E'\\n' ORDER BY r), '')) AS sum, count(*) AS n
       FROM (SELECT (to_jsonb(t) - 'last_used_at')::text AS r FROM "${table_name}" t) x`,
    );
    sums[table_name] = `${rows[0]?.n ?? 0}:${rows[0]?.sum ?? ""}`;
  }
  return sums;
}

export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]);
}

export type RouteReport = {
  route: string;
  requests: number;
  statuses: Record<number, number>;
  serverErrors: number;
  malformed: number;
  writesAccepted: number;
  /** Requests whose JSON body carried text PostgreSQL cannot store (NUL, a lone surrogate), in a key or value. */
  unstorableBodies: number;
  /** Requests whose path had a percent-escape that does not decode, and those of them not answered 400. */
  malformedEscapes: number;
  malformedEscapesNot400: number;
  changedTables: string[];
  examples: string[];
  ms: number;
};

function carriesUnstorableText(body: Uint8Array | undefined): boolean {
  if (!body) return false;
  try {
    return inspectJson(JSON.parse(Buffer.from(body).toString("utf8"))).unstorable;
  } catch {
    return false;
  }
}

/** Sends `count` hostile requests to one route (a few at a time) and judges every answer. */
export async function fuzzRoute(
  db: PrismaClient,
  route: FuzzRoute,
  tokens: FuzzTokens,
  options: { count: number; seed: number; knownIds?: string[]; concurrency?: number },
): Promise<RouteReport> {
  const report: RouteReport = {
    route: route.name,
    requests: 0,
    statuses: {},
    serverErrors: 0,
    malformed: 0,
    writesAccepted: 0,
    unstorableBodies: 0,
    malformedEscapes: 0,
    malformedEscapesNot400: 0,
    changedTables: [],
    examples: [],
    ms: 0,
  };
  const started = Date.now();
  const note = (text: string) => {
    if (report.examples.length < 5) report.examples.push(text);
  };
  const before = await tableChecksums(db);
  const arb = hostileRequest(route, tokens, options.knownIds ?? []);
  const batch = 250;
  for (let done = 0, round = 0; done < options.count; round++) {
    const n = Math.min(batch, options.count - done);
    const requests = fc.sample(arb, { numRuns: n, seed: options.seed + round });
    let next = 0;
    const workers = Array.from({ length: options.concurrency ?? 1 }, async () => {
      while (next < requests.length) {
        const fr = requests[next++] as FuzzRequest;
        const explain = () =>
          `${fr.method} ${fr.url.slice(0, 160)} auth=${(fr.headers.authorization ?? "-").slice(0, 30)} ct=${fr.headers["content-type"] ?? "-"} body=${Buffer.from(fr.body ?? []).toString("utf8", 0, 120)}`;
        const res = await send(route, fr);
        report.requests++;
        report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
        if (carriesUnstorableText(fr.body)) report.unstorableBodies++;
        if (hasMalformedEscape(fr.url)) {
          report.malformedEscapes++;
          if (res.status !== 400) {
            report.malformedEscapesNot400++;
            note(`malformed escape not 400 (${res.status}): ${explain()}`);
          }
        }
        const text = await res.text();
        if (res.status >= 500) {
          report.serverErrors++;
          note(`${res.status}: ${explain()} -> ${text.slice(0, 200)}`);
        }
        if (res.status >= 200 && res.status < 300 && fr.method !== "GET" && route.audience !== "auth") {
          report.writesAccepted++;
          note(`accepted write ${res.status}: ${explain()}`);
        }
        // The sign-in routes belong to the auth library (redirects, its own text errors); only ours are judged on shape.
        if (route.audience !== "auth" && (res.status < 200 || res.status >= 300)) {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const problem = errorShapeProblem(json);
          if (problem) {
            report.malformed++;
            note(`malformed (${problem}) ${res.status}: ${explain()} -> ${text.slice(0, 200)}`);
          }
        }
      }
    });
    await Promise.all(workers);
    done += n;
  }
  report.changedTables = changedTables(before, await tableChecksums(db));
  report.ms = Date.now() - started;
  return report;
}
