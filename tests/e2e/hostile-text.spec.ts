import { execFileSync } from "node:child_process";
import { E2E_DATA_DIR } from "@/playwright.config";
import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";

// Producers and reviewers type free text that the console shows to everyone else; none of it may
// ever run. Each payload below executes if it reaches the DOM as markup or as a link target.
const run = Date.now().toString(36);
const SCRIPT = `<script>alert("xss-script-${run}")</script>`;
const IMG = `<img src=x onerror="alert('xss-img-${run}')">`;
const LINK = `javascript:alert('xss-link-${run}')`;
const SVG = `<svg onload=alert(1)><a href="javascript:alert(2)">click</a></svg>`;

function createApiKey(): string {
  const { DATABASE_URL: _configured, ...inherited } = process.env;
  const out = execFileSync("npx", ["tsx", "scripts/token-create.ts", "api_key", "--name", `e2e-hostile-${run}`], {
    env: { ...inherited, DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
  });
  const secret = /Secret \(shown once, store it now\): (\S+)/.exec(out)?.[1];
  if (!secret) throw new Error(`no secret in: ${out}`);
  return secret;
}

test("script tags, javascript: URLs and HTML in evidence and notes render as inert text", async ({
  page,
  login,
  request,
}) => {
  test.setTimeout(90_000);
  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });

  const operationId = `e2e-hostile-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${createApiKey()}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "submission_uncertain",
      provider: "replicate",
      model: "e2e-model",
      requestFingerprint: `sha256:${"cd".repeat(32)}`,
      request: { prompt: SCRIPT, callback: LINK },
      evidence: {
        summary: `${SCRIPT} ${IMG}`,
        source: LINK,
        details: { html: SVG, url: LINK },
        observedAt: new Date().toISOString(),
      },
      hold: { holdId: `hold-${operationId}`, amountMicros: 2_000_000, currency: "USD" },
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  const { caseId } = (await parked.json()) as { caseId: string };

  await login("reviewer@demo.local");
  await page.goto(`/cases/${caseId}`);
  await expect(page.getByRole("heading", { name: operationId })).toBeVisible();

  const note = page.getByRole("form", { name: "Add a note" });
  await note.getByLabel("Note").fill(`${IMG} ${LINK}`);
  await note.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByTestId("timeline")).toContainText(`xss-img-${run}`);

  const attach = await reviewDecision(page, "Attach the provider job you found", `${SVG} ${SCRIPT}`, {
    providerJobId: `pred-${run}`,
  });
  await attach.getByRole("button", { name: "Attach job" }).click();
  await expect(page.getByTestId("timeline")).toContainText(`pred-${run}`);

  // A full reload renders the same text from the server, not only from client state.
  await page.reload();
  await expect(page.getByRole("heading", { name: operationId })).toBeVisible();
  const body = page.locator("body");
  await expect(body).toContainText(`alert("xss-script-${run}")`);
  await expect(body).toContainText(`onerror="alert('xss-img-${run}')"`);
  await expect(body).toContainText(`xss-link-${run}`);

  // The payloads are text: no element they describe exists, no link points at script.
  await expect(page.locator(`img[src="x"]`)).toHaveCount(0);
  await expect(page.locator("svg[onload]")).toHaveCount(0);
  await expect(page.locator('a[href^="javascript:" i]')).toHaveCount(0);
  const inlineScripts = await page
    .locator("script")
    .evaluateAll((nodes) => nodes.map((node) => node.textContent ?? "").filter((text) => text.includes("alert(")));
  // Next serialises the page's data into its own script payloads as JSON strings; a payload that
  // broke out of them would appear there as an executable statement instead.
  expect(inlineScripts.filter((text) => /^\s*alert\(/.test(text))).toEqual([]);

  await page.goto(`/queue?q=${operationId}`);
  await expect(page.getByRole("link", { name: operationId })).toBeVisible();
  expect(dialogs).toEqual([]);
});
