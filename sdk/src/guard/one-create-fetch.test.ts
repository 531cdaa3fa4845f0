import { describe, expect, it } from "vitest";
import { CreateAlreadySent, createOneCreateFetch } from "./one-create-fetch";

// The one-create fetch in front of a recording fetch: what reaches the "wire" is what the base saw.
function recorder(answer: () => Promise<Response> = async () => new Response("{}", { status: 201 })) {
  const wire: string[] = [];
  const base = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    wire.push(`${init?.method ?? "GET"} ${String(input)}`);
    return answer();
  }) as typeof fetch;
  return { wire, base };
}

describe("the one-create fetch", () => {
  it("sends the first create, refuses every later one before sending, and lets reads through", async () => {
    const { wire, base } = recorder();
    const guard = createOneCreateFetch(new AbortController().signal, base);
    await guard.fetch("https://p.example/v1/jobs", { method: "POST", body: "{}" });
    await expect(guard.fetch("https://p.example/v1/jobs", { method: "POST" })).rejects.toBeInstanceOf(
      CreateAlreadySent,
    );
    await expect(guard.fetch("https://p.example/v1/jobs/1", { method: "PUT" })).rejects.toMatchObject({
      code: "create_already_sent",
      sent: { method: "POST", status: 201 },
    });
    await guard.fetch("https://p.example/v1/jobs/1");
    await guard.fetch("https://p.example/v1/jobs/1", { method: "head" });
    expect(wire).toEqual([
      "POST https://p.example/v1/jobs",
      "GET https://p.example/v1/jobs/1",
      "head https://p.example/v1/jobs/1",
    ]);
    expect(guard.refused()).toBe(2);
  });

  it("lets one of two creates started together through", async () => {
    const { wire, base } = recorder();
    const guard = createOneCreateFetch(new AbortController().signal, base);
    const both = await Promise.allSettled([
      guard.fetch("https://p.example/a", { method: "POST" }),
      guard.fetch("https://p.example/b", { method: "POST" }),
    ]);
    expect(both.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(wire).toEqual(["POST https://p.example/a"]);
  });

  it("records a create whose answer was lost, and refuses the client's resend", async () => {
    const { wire, base } = recorder(async () => {
      throw new TypeError("fetch failed");
    });
    const guard = createOneCreateFetch(new AbortController().signal, base);
    await expect(guard.fetch("https://p.example/a", { method: "POST" })).rejects.toThrow("fetch failed");
    await expect(guard.fetch("https://p.example/a", { method: "POST" })).rejects.toBeInstanceOf(CreateAlreadySent);
    expect(guard.sent()).toMatchObject({ error: "TypeError: fetch failed" });
    expect(wire).toHaveLength(1);
  });

  it("sends nothing once the submit is aborted or settled", async () => {
    const { wire, base } = recorder();
    const stop = new AbortController();
    const closed = createOneCreateFetch(stop.signal, base);
    closed.close();
    await expect(closed.fetch("https://p.example/a", { method: "POST" })).rejects.toBeInstanceOf(CreateAlreadySent);
    stop.abort(new Error("no answer within 5 ms"));
    const aborted = createOneCreateFetch(stop.signal, base);
    await expect(aborted.fetch("https://p.example/a/1")).rejects.toThrow("no answer within 5 ms");
    await expect(aborted.fetch("https://p.example/a", { method: "POST" })).rejects.toThrow("no answer within 5 ms");
    expect(wire).toEqual([]);
  });

  it("passes the submit's abort to a request already on the wire", async () => {
    const stop = new AbortController();
    const base = ((_input: unknown, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      })) as typeof fetch;
    const guard = createOneCreateFetch(stop.signal, base);
    const pending = guard.fetch("https://p.example/a", { method: "POST", signal: new AbortController().signal });
    stop.abort(new Error("stopped waiting"));
    await expect(pending).rejects.toThrow("stopped waiting");
  });
});
