import { execFileSync } from "node:child_process";
import { E2E_DATA_DIR } from "@/playwright.config";
import { reviewDecision } from "./fixtures/decide";
import { expect, test } from "./fixtures/login";
import { expectFitsWidth } from "./fixtures/screen";

// One person holding both reviewer and finance roles, created with the operator's own command.
function createDualRoleUser(email: string): void {
  const { DATABASE_URL: _configured, ...inherited } = process.env;
  execFileSync("npx", ["tsx", "scripts/user-create.ts", "--email", email, "--role", "reviewer", "--role", "finance"], {
    env: { ...inherited, DATA_DIR: E2E_DATA_DIR },
    encoding: "utf8",
  });
}

test("a reviewer requests a replacement; the same person cannot authorise it, a finance colleague can", async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const dual = `dual-${Date.now().toString(36)}@demo.local`;
  createDualRoleUser(dual);
  await login(dual);
  await page.goto("/queue?q=demo-order-1011");
  await page.getByRole("link", { name: "demo-order-1011" }).click();
  const confirm = await reviewDecision(
    page,
    "Request a replacement generation",
    "Provider confirmed the failure; the customer still needs the video.",
  );
  // What a new video costs, and what is held already, before anything is asked of finance.
  await expect(confirm.getByTestId("duplicate-cost")).toContainText("$");
  await expect(confirm).toContainText("Money already on hold for this case: $");
  // A double click sends one request, and the sender is not told someone else acted first.
  await confirm.getByRole("button", { name: "Request replacement" }).dblclick();
  // The request is shown as waiting for finance; the choice does not stay live to be sent twice.
  await expect(page.getByTestId("replacement-pending")).toContainText("waiting for finance");
  await expect(page.getByRole("radio", { name: "Request a replacement generation" })).toHaveCount(0);
  await expect(page.getByText("Someone else acted on this first")).toHaveCount(0);

  // The requester sees the request marked as theirs, with nothing to authorise it with...
  await page.goto("/finance");
  const mine = page.getByTestId("replacement-request").filter({ hasText: "demo-order-1011" });
  await expect(mine).toContainText("(you)");
  await expect(mine.getByRole("button", { name: /Authorise/ })).toHaveCount(0);
  // ...and the server refuses it even when asked directly.
  const caseResponse = await page.request.get("/api/v1/cases?q=demo-order-1011");
  const caseId = (await caseResponse.json()).items[0].id as string;
  const detail = await (await page.request.get(`/api/v1/cases/${caseId}`)).json();
  expect(detail.replacementRequests).toHaveLength(1);
  const requestId = detail.replacementRequests[0].id as string;
  const forged = await page.request.post(`/api/v1/replacement-requests/${requestId}/authorize`, {
    data: { evidence: "my own approval" },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(forged.status()).toBe(403);
  expect((await forged.json()).error.code).toBe("four_eyes_violation");

  await login("finance@demo.local");
  await page.goto("/finance");
  const item = page.getByTestId("replacement-request").filter({ hasText: "demo-order-1011" });
  await item.getByLabel("Evidence").fill("Budget approved in ticket FIN-7.");
  await item.getByRole("button", { name: "Authorise…" }).click();
  await item.getByRole("button", { name: "Authorise replacement" }).click();
  await expect(item).toHaveCount(0);

  await page.goto(`/cases/${caseId}`);
  await expect(page.getByText("Finance authorised a replacement").first()).toBeVisible();
  await expect(page.getByRole("cell", { name: /replacement of demo-order-1011-a1/ })).toBeVisible();

  // With two attempts' long IDs in its money table, the case still fits a phone's width.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("cell", { name: /replacement of demo-order-1011-a1/ })).toBeVisible();
  await expectFitsWidth(page, "a case with a replacement");
});
