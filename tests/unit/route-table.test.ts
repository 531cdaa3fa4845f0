import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { openApiDocument } from "@/lib/api/openapi";
import { API_ROUTES, routeKey } from "@/lib/api/routes";

// The route table (lib/api/routes.ts) is the one declaration of the API's routes; these hold the
// route files, the OpenAPI document and the HTTP entry's direct list to it.

const APP = path.resolve("app");
/** Route files that are not JSON API routes, and why they are not in the table. */
const OUTSIDE_THE_TABLE: Record<string, string> = {
  "api/auth/[...nextauth]/route.ts": "next-auth's own sign-in routes (forms and redirects, not JSON)",
  "api/metrics/route.ts": "Prometheus text behind METRICS_TOKEN, not an API principal",
  "api/v1/openapi.json/route.ts": "the document of the table itself, public",
};

const fileOf = (routePath: string) => `${routePath.slice(1).replace(/\{(\w+)\}/g, "[$1]")}/route.ts`;
const placeholders = (routePath: string) => [...routePath.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);

function routeFiles(dir = path.join(APP, "api")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [path.relative(APP, full)] : [];
  });
}

describe("the route table", () => {
  const tablePaths = [...new Set(API_ROUTES.map((route) => route.path))];

  it("names each route once, with path parameters its schema reads", () => {
    const keys = API_ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of API_ROUTES) {
      const shape = (route.params as z.ZodObject | undefined)?.shape ?? {};
      expect(Object.keys(shape), routeKey(route)).toEqual(placeholders(route.path));
    }
  });

  it("has a route file for every path, and every route file under app/api is in the table or named here", () => {
    const files = routeFiles().sort();
    const expected = [...tablePaths.map(fileOf), ...Object.keys(OUTSIDE_THE_TABLE)].sort();
    expect(files).toEqual(expected);
  });

  it.each(tablePaths)(
    "%s: its route file exports exactly the table's handlers and holds no route logic",
    async (routePath) => {
      const file = path.join(APP, fileOf(routePath));
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const routes = API_ROUTES.filter((route) => route.path === routePath);
      const methods = Object.keys(module).filter((name) => /^[A-Z]+$/.test(name));
      expect(methods.sort()).toEqual(routes.map((route) => route.method).sort());
      for (const route of routes) expect(module[route.method], routeKey(route)).toBe(route.handle);
      // Nothing but the table's handlers and Next's segment settings (which Next reads from the file itself).
      const code = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.trim().startsWith("//"));
      for (const line of code) {
        expect(line, file).toMatch(
          /^(import \{ routeHandlers \} from "@\/lib\/api\/routes";|export const (dynamic|maxDuration) = [^;]+;|export const \{ [A-Z, ]+ \} = routeHandlers\("[^"]+"\);)$/,
        );
      }
    },
  );

  it("is exactly what the OpenAPI document lists", () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const documented = Object.entries(doc.paths).flatMap(([routePath, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${routePath}`),
    );
    expect(documented.sort()).toEqual(API_ROUTES.map(routeKey).sort());
    for (const route of API_ROUTES) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(Boolean(operation?.requestBody), routeKey(route)).toBe(Boolean(route.body));
    }
  });

  it("flags as direct exactly the routes programs call in bursts (bearer tokens and provider signatures)", () => {
    const direct = API_ROUTES.filter((route) => route.direct);
    expect(direct.map(routeKey)).toEqual([
      "POST /api/v1/cases",
      "GET /api/v1/cases/by-operation/{operationId}",
      "POST /api/v1/operations/{operationId}/attempts",
      "POST /api/v1/attempts/{attemptId}/outcome",
      "POST /api/v1/provider-webhooks/replicate",
      "POST /api/v1/provider-webhooks/fal",
      "GET /api/v1/replacements",
      "POST /api/v1/replacements/{id}/ack",
      "POST /api/worker/tick",
    ]);
    for (const route of direct) expect(["producer", "worker", "provider"]).toContain(route.audience);
  });
});
