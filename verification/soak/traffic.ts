import { type DemoShop, runDemoOrders } from "../../scripts/demo-shop";

export type SoakCounters = {
  pagesServed: number;
  pageFailures: number;
  approvals: number;
  failuresAccepted: number;
  reviewFailures: number;
  trafficBatches: number;
  trafficFailures: number;
};

export const newCounters = (): SoakCounters => ({
  pagesServed: 0,
  pageFailures: 0,
  approvals: 0,
  failuresAccepted: 0,
  reviewFailures: 0,
  trafficBatches: 0,
  trafficFailures: 0,
});

/** Waits `ms`, or less when the run is stopped; the abort listener goes when the wait ends. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

/** A batch of demo orders every minute (the shop app of `npm run demo:traffic`), until aborted. */
export async function trafficLoop(input: {
  shop: DemoShop;
  ordersPerMinute: number;
  counters: SoakCounters;
  log: (line: string) => void;
  signal: AbortSignal;
}) {
  while (!input.signal.aborted) {
    const started = Date.now();
    try {
      await runDemoOrders(input.shop, input.ordersPerMinute, input.log);
      input.counters.trafficBatches += 1;
    } catch (error) {
      input.counters.trafficFailures += 1;
      input.log(`batch failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    await sleep(Math.max(0, 60_000 - (Date.now() - started)), input.signal);
  }
}

type CaseItem = { id: string; stage: string };

/**
 * A reviewer at the console's JSON API with a session: approves the recovery every parked
 * polling or delivery case permits and accepts reported failures, so the workers have work.
 */
export async function reviewLoop(input: {
  appUrl: string;
  cookie: string;
  counters: SoakCounters;
  signal: AbortSignal;
}) {
  const call = (path: string, body?: unknown) =>
    fetch(`${input.appUrl}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { cookie: input.cookie, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  const decisions: Record<string, { path: string; body: unknown }> = {
    polling: { path: "approve", body: { action: "resume_poll", evidence: "soak reviewer: poll again" } },
    delivery: { path: "approve", body: { action: "retry_delivery", evidence: "soak reviewer: deliver again" } },
    generation_failed: { path: "accept-failure", body: { evidence: "soak reviewer: the failure stands" } },
  };
  while (!input.signal.aborted) {
    try {
      const response = await call("/api/v1/cases?state=parked&limit=100");
      if (!response.ok) throw new Error(`listing parked cases answered ${response.status}`);
      const { items } = (await response.json()) as { items: CaseItem[] };
      for (const item of items) {
        const decision = decisions[item.stage];
        if (!decision || input.signal.aborted) continue;
        const answer = await call(`/api/v1/cases/${item.id}/${decision.path}`, decision.body);
        await answer.body?.cancel();
        if (answer.ok && decision.path === "approve") input.counters.approvals += 1;
        else if (answer.ok) input.counters.failuresAccepted += 1;
        else input.counters.reviewFailures += 1;
      }
    } catch {
      input.counters.reviewFailures += 1;
    }
    await sleep(20_000, input.signal);
  }
}

/** Signed-in page loads round the console, evenly spaced; a redirect to sign-in counts as a failure. */
export async function pageLoop(input: {
  appUrl: string;
  cookie: string;
  pagesPerMinute: number;
  counters: SoakCounters;
  someCaseId: () => Promise<string | null>;
  signal: AbortSignal;
}) {
  for (let i = 0; !input.signal.aborted; i++) {
    const started = Date.now();
    const kind = i % 4;
    const caseId = kind === 2 ? await input.someCaseId().catch(() => null) : null;
    const path = ["/overview", "/queue", caseId ? `/cases/${caseId}` : "/queue", "/finance"][kind] as string;
    try {
      const response = await fetch(`${input.appUrl}${path}`, {
        headers: { cookie: input.cookie },
        redirect: "manual",
        signal: AbortSignal.timeout(30_000),
      });
      const html = await response.text();
      if (response.status === 200 && html.length > 0) input.counters.pagesServed += 1;
      else input.counters.pageFailures += 1;
    } catch {
      input.counters.pageFailures += 1;
    }
    await sleep(Math.max(0, 60_000 / input.pagesPerMinute - (Date.now() - started)), input.signal);
  }
}
