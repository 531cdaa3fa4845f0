import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { E2E_DATA_DIR } from "@/playwright.config";
import { expect, test } from "./fixtures/login";

// Issue 19 in the console: an admin points alerts at a Slack-compatible channel and adds a rule; a
// case passes its deadline, one worker tick escalates it, evaluates the rule and sends the message;
// the message links to the filtered queue, and the firing is listed with its figures.
const run = Date.now().toString(36);

function mintToken(kind: "api_key" | "worker", name: string): string {
  const { DATABASE_URL: _configured, ...inherited } = process.env;
  const out = execFileSync("npx", ["tsx", "scripts/token-create.ts", kind, "--name", name], {
    env: { ...inherited, DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
  });
  const secret = /Secret \(shown once, store it now\): (\S+)/.exec(out)?.[1];
  if (!secret) throw new Error(`no secret in: ${out}`);
  return secret;
}

let apiKey = "";
let workerToken = "";
const messages: { text: string }[] = [];
let receiverUrl = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    messages.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    res.end("ok");
  });
});

test.beforeAll(async () => {
  apiKey = mintToken("api_key", `e2e-alerts-${run}`);
  workerToken = mintToken("worker", `e2e-alerts-worker-${run}`);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/services/T1/B2/secret-part`;
});
test.afterAll(() => {
  receiver.closeAllConnections();
  receiver.close();
});

test("an admin routes overdue cases to a chat channel, and the firing is listed with its figures", async ({
  page,
  login,
  request,
}) => {
  await login("admin@demo.local");
  await page.goto("/admin");
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Alerts" })).toBeVisible();

  // A Slack destination: no secret to show, and its URL (a credential) is shown by host only.
  const destination = page.getByRole("region", { name: "Add a destination" });
  const channel = `ops-${run}`;
  await destination.getByLabel("Name").fill(channel);
  await destination.getByLabel("Kind").selectOption({ label: "Slack message" });
  await destination.getByLabel("URL").fill(receiverUrl);
  await destination.getByRole("button", { name: "Add destination" }).click();
  await expect(destination.getByRole("status")).toHaveText(`Saved the destination ${channel}.`);
  const destinationRow = page.getByRole("table", { name: "Alert destinations by name" }).getByRole("row").filter({
    hasText: channel,
  });
  await expect(destinationRow).toContainText("Slack message");
  await expect(destinationRow).not.toContainText("secret-part");

  const rules = page.getByRole("region", { name: "Add a rule" });
  const ruleName = `Overdue ${run}`;
  await rules.getByLabel("Name").fill(ruleName);
  await rules.getByLabel("Condition").selectOption({ label: "Cases escalated past their deadline" });
  await rules.getByLabel("Send to").selectOption({ label: channel });
  await rules.getByLabel("At least (count)").fill("1");
  await rules.getByLabel("Re-notify every (minutes)").fill("60");
  await rules.getByRole("button", { name: "Add rule" }).click();
  await expect(rules.getByRole("status")).toHaveText(`Saved the rule ${ruleName}.`);
  const ruleRow = page
    .getByRole("table", { name: "Alert rules by name" })
    .getByRole("row")
    .filter({ hasText: ruleName });
  await expect(ruleRow).toContainText("every 60 min");

  // Edit it: the form opens with its values, and the table shows the change.
  await ruleRow.getByRole("link", { name: `Edit ${ruleName}` }).click();
  const editing = page.getByRole("region", { name: `Edit rule ${ruleName}` });
  await editing.getByLabel("Re-notify every (minutes)").fill("30");
  await editing.getByRole("button", { name: "Save rule" }).click();
  await expect(ruleRow).toContainText("every 30 min");

  // A case past its deadline; one tick escalates it, evaluates the rule and sends the message (the
  // rule just saved made the alert round due, so this tick takes it rather than waiting up to 30 s).
  const operationId = `order-alerts-${run}`;
  const parked = await request.post("/api/v1/cases", {
    headers: { authorization: `Bearer ${apiKey}` },
    data: {
      operationId,
      attemptId: `${operationId}-a1`,
      stage: "generation_failed",
      provider: "replicate",
      model: "omni-flash-720p",
      requestFingerprint: `sha256:${createHash("sha256").update(operationId).digest("hex")}`,
      evidence: { summary: "the provider reported a failure", observedAt: "2026-12-04T10:00:00Z" },
      hold: { holdId: `hold-${operationId}`, amountMicros: 100_000, currency: "USD" },
      retryDeadline: new Date(Date.now() - 60_000).toISOString(),
    },
  });
  expect(parked.status(), await parked.text()).toBe(201);
  const tick = await request.post("/api/worker/tick", {
    headers: { authorization: `Bearer ${workerToken}` },
    data: { workerId: `e2e-alerts-${run}`, maxTasks: 1 },
  });
  expect(tick.status(), await tick.text()).toBe(200);
  await expect.poll(() => messages.length).toBeGreaterThan(0);
  const [message] = messages;
  expect(message?.text).toContain(`:rotating_light: Alert firing: *${ruleName}*`);
  const link = /<([^|>]+)\|Open in the console>/.exec(message?.text ?? "")?.[1];
  expect(link).toMatch(/\/queue\?flag=escalated$/);

  // The link opens the queue filtered to escalated cases, and the new one is in it.
  await page.goto(new URL(link ?? "/", page.url()).pathname + new URL(link ?? "/", page.url()).search);
  await expect(page).toHaveURL(/flag=escalated/);
  await expect(page.getByRole("link", { name: operationId, exact: true })).toBeVisible();

  // Every firing is listed, with the figures it fired on.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Alert firings" })).toBeVisible();
  const firing = page.getByRole("row").filter({ hasText: ruleName });
  await expect(firing).toContainText("firing");
  await expect(firing).toContainText("open cases past their deadline");
  await expect(firing).toContainText("1 delivered");
});
