import { beforeAll, describe, expect, it, vi } from "vitest";
import { API_ROUTES, routeKey } from "@/lib/api/routes";
import { env } from "@/lib/env";
import { createAccessToken } from "@/lib/services/access/create-access-token";
import { acceptFailure } from "@/lib/services/case/accept-failure";
import { getCase } from "@/lib/services/case/get-case";
import { parkCase } from "@/lib/services/case/park-case";
import { assetStorageOf } from "@/lib/storage/asset-storage";
import { makeUser, parkInput, producer, publishedAsset } from "./fixtures";
import { openTestDb } from "./setup/test-db";

// Decision 067: the people who export evidence play and download a case's delivered videos, as
// stored; nobody else, and nothing stored can run as a page of the console.
vi.hoisted(() => {
  process.env.ASSET_DIR = `${process.env.TMPDIR ?? "/tmp"}/delivered-outputs-${process.pid}`;
});
const { db } = openTestDb();
const route = API_ROUTES.find((r) => routeKey(r) === "GET /api/v1/cases/{id}/outputs/{assetId}");
const tokens: Record<string, string> = {};

async function output(bytes: string, options: { contentType?: string; shop?: string } = {}) {
  const { caseId } = await parkCase(db, producer(options.shop ?? "outputs-shop"), parkInput("delivery"));
  const kase = await db.case.findUniqueOrThrow({ where: { id: String(caseId) } });
  const storageKey = `outputs-test/${kase.id}/0`;
  const write = await assetStorageOf(env()).begin(storageKey);
  write.sink.end(Buffer.from(bytes));
  await write.commit();
  const asset = await publishedAsset(db, kase, { storageKey, sizeBytes: bytes.length, sha256: "ef".repeat(32) });
  await db.asset.update({ where: { id: asset.id }, data: { contentType: options.contentType ?? "video/mp4" } });
  return { caseId: kase.id, assetId: asset.id, operationId: kase.operationId };
}

async function fetchOutput(
  token: string,
  params: { caseId: string; assetId: string },
  download = false,
  headers: Record<string, string> = {},
) {
  if (!route) throw new Error("the outputs route is not in the route table");
  const url = new URL("http://localhost/api/test");
  if (download) url.searchParams.set("download", "1");
  const request = new Request(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const response = await route.handle(request, {
    params: Promise.resolve({ id: params.caseId, assetId: params.assetId }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

beforeAll(async () => {
  for (const [name, roles] of [
    ["reviewer", ["reviewer"]],
    ["operator", ["operator"]],
    ["viewer", ["viewer"]],
    ["finance", ["finance"]],
  ] as const) {
    const user = await makeUser(db, [...roles]);
    tokens[name] = (await createAccessToken(db, user, { kind: "personal", name: "outputs" })).secret;
  }
  const scoped = await makeUser(db, ["reviewer"]);
  await db.user.update({ where: { id: scoped.userId }, data: { producerScope: ["another-shop"] } });
  tokens.scoped = (await createAccessToken(db, scoped, { kind: "personal", name: "outputs" })).secret;
});

describe("a case's delivered output", () => {
  it("plays in the page as stored for a reviewer, and downloads under the operation's name", async () => {
    const stored = await output("the video's bytes");
    const played = await fetchOutput(tokens.reviewer as string, stored);
    expect(played).toMatchObject({ status: 200, text: "the video's bytes" });
    expect(played.headers.get("content-type")).toBe("video/mp4");
    expect(played.headers.get("content-disposition")).toBe(`inline; filename="${stored.operationId}-output-0.mp4"`);
    const downloaded = await fetchOutput(tokens.finance as string, stored, true);
    expect(downloaded.text).toBe("the video's bytes");
    expect(downloaded.headers.get("content-disposition")).toMatch(/^attachment; /);
    expect(downloaded.headers.get("content-type")).toBe("application/octet-stream");
  });

  it("never serves a stored page as a page: any type but video or image is a download of bytes", async () => {
    const stored = await output("<script>alert(1)</script>", { contentType: "text/html" });
    const answer = await fetchOutput(tokens.reviewer as string, stored);
    expect(answer.headers.get("content-type")).toBe("application/octet-stream");
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; /);
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("is refused to triage and read-only roles, and does not exist outside a person's producers", async () => {
    const stored = await output("private video");
    expect((await fetchOutput(tokens.operator as string, stored)).status).toBe(403);
    expect((await fetchOutput(tokens.viewer as string, stored)).status).toBe(403);
    expect((await fetchOutput(tokens.scoped as string, stored)).status).toBe(404);
    // The asset must belong to the case named in the address.
    const other = await output("another case's video");
    expect((await fetchOutput(tokens.reviewer as string, { ...stored, assetId: other.assetId })).status).toBe(404);
  });

  it("says why it is gone once retention deleted it or its file is missing", async () => {
    const deleted = await output("old video");
    await db.asset.update({ where: { id: deleted.assetId }, data: { deletedAt: new Date() } });
    const answer = await fetchOutput(tokens.reviewer as string, deleted);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toEqual({
      error: { code: "not_found", message: "This output was deleted under the retention policy." },
    });
    const missing = await output("vanished video");
    const asset = await db.asset.findUniqueOrThrow({ where: { id: missing.assetId } });
    await assetStorageOf(env()).remove(asset.storageKey);
    expect(JSON.parse((await fetchOutput(tokens.reviewer as string, missing)).text)).toEqual({
      error: { code: "not_found", message: "This output is no longer in storage." },
    });
  });
});

describe("seeking in a delivered output (decision 071)", () => {
  const bytes = Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");

  it("answers one byte range with 206 and where it lies, from the stored file", async () => {
    const stored = await output(bytes);
    const part = await fetchOutput(tokens.reviewer as string, stored, false, { range: "bytes=150000-150009" });
    expect(part.status).toBe(206);
    expect(part.text).toBe(bytes.slice(150_000, 150_010));
    expect(part.headers.get("content-range")).toBe(`bytes 150000-150009/${bytes.length}`);
    expect(part.headers.get("content-length")).toBe("10");
    expect(part.headers.get("accept-ranges")).toBe("bytes");
    // An open end and a suffix, as a player asks when it seeks and when it reads the index at the end.
    const rest = await fetchOutput(tokens.reviewer as string, stored, false, { range: "bytes=199990-" });
    expect([rest.status, rest.text]).toEqual([206, bytes.slice(199_990)]);
    const tail = await fetchOutput(tokens.reviewer as string, stored, false, { range: "bytes=-5" });
    expect([tail.status, tail.text, tail.headers.get("content-range")]).toEqual([
      206,
      bytes.slice(-5),
      `bytes ${bytes.length - 5}-${bytes.length - 1}/${bytes.length}`,
    ]);
  });

  it("answers 416 with the file's size for a range past its end, and the whole file without a usable range", async () => {
    const stored = await output(bytes);
    const past = await fetchOutput(tokens.reviewer as string, stored, false, { range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.text).toBe("");
    expect(past.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
    const whole = await fetchOutput(tokens.reviewer as string, stored);
    expect([whole.status, whole.text.length, whole.headers.get("accept-ranges")]).toEqual([200, bytes.length, "bytes"]);
    const several = await fetchOutput(tokens.reviewer as string, stored, false, { range: "bytes=0-1,5-6" });
    expect([several.status, several.text.length]).toEqual([200, bytes.length]);
  });

  it("checks permission and scope before any range is read", async () => {
    const stored = await output(bytes);
    const refused = await fetchOutput(tokens.operator as string, stored, false, { range: "bytes=0-9" });
    expect(refused.status).toBe(403);
    const hidden = await fetchOutput(tokens.scoped as string, stored, false, { range: "bytes=0-9" });
    expect(hidden.status).toBe(404);
  });
});

describe("an earlier attempt's output after the case came back with another attempt (decision 071)", () => {
  it("stays listed, labelled by its attempt, after the current attempt's, and is still served", async () => {
    const shop = producer("outputs-shop");
    const first = parkInput("generation_failed");
    const { caseId } = await parkCase(db, shop, first);
    const before = await db.case.findUniqueOrThrow({ where: { id: String(caseId) } });
    const earlierKey = `outputs-test/${before.id}/earlier`;
    const write = await assetStorageOf(env()).begin(earlierKey);
    write.sink.end(Buffer.from("the first attempt's video"));
    await write.commit();
    const earlier = await publishedAsset(db, before, {
      storageKey: earlierKey,
      sizeBytes: 25,
      sha256: "ab".repeat(32),
    });
    const reviewer = await makeUser(db, ["reviewer"]);
    await acceptFailure(db, reviewer, before.id, { evidence: "the provider failed the job" });
    const second = parkInput("delivery", {
      operationId: first.operationId,
      attemptId: `${first.attemptId}-replacement`,
      requestFingerprint: first.requestFingerprint,
      hold: { ...first.hold, holdId: `${first.hold.holdId}-2` },
    });
    await parkCase(db, shop, second);
    const after = await db.case.findUniqueOrThrow({ where: { id: before.id } });
    expect(after.episode).toBe(2);
    const current = await publishedAsset(db, after, {
      storageKey: `outputs-test/${after.id}/current`,
      sizeBytes: 1,
      sha256: "cd".repeat(32),
    });

    const detail = await getCase(db, reviewer, before.id, env());
    expect(detail.assets.map((a) => [a.attemptId, a.current, a.href])).toEqual([
      [second.attemptId, true, `/api/v1/cases/${before.id}/outputs/${current.id}`],
      [first.attemptId, false, `/api/v1/cases/${before.id}/outputs/${earlier.id}`],
    ]);
    const served = await fetchOutput(tokens.reviewer as string, { caseId: before.id, assetId: earlier.id });
    expect([served.status, served.text]).toEqual([200, "the first attempt's video"]);
    // Downloaded, it is named by its attempt, so it never takes the current output's name.
    const file = await fetchOutput(tokens.reviewer as string, { caseId: before.id, assetId: earlier.id }, true);
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${first.attemptId}-output-0"`);
    expect(first.attemptId.startsWith(first.operationId)).toBe(true);
  });
});
