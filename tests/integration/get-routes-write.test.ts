import { describe, expect, it, vi } from "vitest";
import type { ApiRequest } from "@/lib/api/api-request";
import type { ApiRoute } from "@/lib/api/api-route";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { parkCase } from "@/lib/services/case/park-case";
import { assetStorageOf } from "@/lib/storage/asset-storage";
import { tableChecksums } from "@/verification/fuzz/requests";
import { makeUser, parkInput, producer, publishedAsset } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Delivered outputs are read from here (the outputs route): a folder of this test's own.
vi.hoisted(() => {
  process.env.ASSET_DIR = `${process.env.TMPDIR ?? "/tmp"}/get-routes-write-${process.pid}`;
});

// Every GET of the route table, called as it succeeds, and judged by what it wrote: a GET that
// changes any row (an evidence export's audit events, anything) must refuse cross-site requests
// (Sec-Fetch-Site), and one that refuses them must be one that writes. Left out of the checksums,
// as in the fuzz run: rate-limit counters and a token's last use, which every request may touch.
const { db } = openTestDb();
const SHOP = "get-writes-shop";

/** Queries a route needs to succeed at all (the rest need none). */
const QUERIES: Record<string, string> = {
  "GET /api/v1/finance/export": "?kind=holds&from=2026-12-01&to=2026-12-05",
};

/** A published output of the case, its file in the store the route reads. */
async function storedOutput(caseId: string): Promise<string> {
  const kase = await db.case.findUniqueOrThrow({ where: { id: caseId } });
  const storageKey = `get-writes/${caseId}/0.mp4`;
  const write = await assetStorageOf(env()).begin(storageKey);
  write.sink.end(Buffer.from("a tiny video"));
  await write.commit();
  return (await publishedAsset(db, kase, { storageKey, sizeBytes: 12, sha256: "ab".repeat(32) })).id;
}

async function setting() {
  const admin = await makeUser(db, ["admin", "reviewer", "finance", "operator"]);
  const tokens = {
    user: (await createAccessToken(db, "cli", { kind: "personal", name: "get-writes", userId: admin.userId })).secret,
    producer: (await createAccessToken(db, "cli", { kind: "api_key", name: SHOP })).secret,
  };
  const input = parkInput("polling");
  const { caseId } = await parkCase(db, producer(SHOP), input);
  const params = { id: caseId, operationId: input.operationId, assetId: await storedOutput(String(caseId)) };
  return { tokens, params };
}

function request(route: ApiRoute, token: string, headers: Record<string, string> = {}): ApiRequest {
  const all: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
  return {
    method: route.method,
    url: `http://localhost${route.path}${QUERIES[routeKey(route)] ?? ""}`,
    header: (name) => all[name.toLowerCase()] ?? null,
    body: async function* () {},
  };
}

const GETS = (API_ROUTES as readonly ApiRoute[]).filter((route) => route.method === "GET");

describe("GET routes that write", () => {
  it("are exactly those that refuse cross-site requests", async () => {
    const { tokens, params } = await setting();
    const writers: string[] = [];
    for (const route of GETS) {
      const token = route.audience === "producer" ? tokens.producer : tokens.user;
      const before = await tableChecksums(db);
      const reply = await route.serve(request(route, token), params);
      expect(
        reply.status,
        `${routeKey(route)}: ${typeof reply.body === "string" ? reply.body.slice(0, 200) : "(a file)"}`,
      ).toBe(200);
      const after = await tableChecksums(db);
      if (Object.keys(after).some((table) => after[table] !== before[table])) writers.push(routeKey(route));
    }
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.sort()).toEqual(
      GETS.filter((route) => route.refuseCrossSite)
        .map(routeKey)
        .sort(),
    );
  }, 300_000);

  it("refuse Sec-Fetch-Site: cross-site with a typed 403 that writes nothing, and let the rest through", async () => {
    const { tokens, params } = await setting();
    const writing = GETS.filter((route) => route.refuseCrossSite);
    expect(writing.map(routeKey).sort()).toEqual([
      "GET /api/v1/cases/evidence",
      "GET /api/v1/cases/export",
      "GET /api/v1/cases/{id}/evidence",
    ]);
    for (const route of writing) {
      for (const site of ["cross-site", "Cross-Site"]) {
        const before = await tableChecksums(db);
        const refused = await route.serve(request(route, tokens.user, { "sec-fetch-site": site }), params);
        expect(refused.status, routeKey(route)).toBe(403);
        expect(JSON.parse(String(refused.body))).toEqual({
          error: { code: "cross_site_refused", message: expect.stringMatching(/another site/) },
        });
        expect(await tableChecksums(db)).toEqual(before);
      }
      // A browser on this origin or a sibling host, a typed address, or a program (no header at all).
      for (const site of ["same-origin", "same-site", "none", undefined]) {
        const headers: Record<string, string> = site ? { "sec-fetch-site": site } : {};
        const reply = await route.serve(request(route, tokens.user, headers), params);
        expect(reply.status, `${routeKey(route)} ${site}`).toBe(200);
      }
    }
  }, 300_000);
});
