import type { APIRequestContext } from "@playwright/test";
import { reviewDecision } from "./fixtures/decide";
import { nextActionCall, replayAction } from "./fixtures/forge";
import { expect, loginAs, test } from "./fixtures/login";

async function parkedPollingCases(request: APIRequestContext): Promise<string[]> {
  const response = await request.get("/api/v1/cases?stage=polling&state=parked&limit=10");
  expect(response.status()).toBe(200);
  return ((await response.json()).items as { id: string }[]).map((c) => c.id);
}

test("server actions refuse forged calls from a role (or a visitor) that may not make them", async ({
  browser,
  page,
  login,
}) => {
  await login("reviewer@demo.local");
  const [first, target] = await parkedPollingCases(page.request);
  expect(target).toBeDefined();

  // A legitimate approval, to learn what the browser sends for this action.
  await page.goto(`/cases/${first}`);
  const confirm = await reviewDecision(page, "Resume status checks", "provider healthy again");
  const captured = nextActionCall(page);
  await confirm.getByRole("button", { name: "Approve status checks" }).click();
  const legit = await captured;
  const body = (legit.postData() ?? "").replace(first ?? "", target ?? "");

  // The same call, forged by an operator (who may not approve) and by someone not signed in.
  const operator = await browser.newContext();
  const operatorPage = await operator.newPage();
  await loginAs(operatorPage, "operator@demo.local");
  const forged = await replayAction(operatorPage.request, legit, body);
  expect(await forged.text()).toContain("forbidden");
  const anonymous = await browser.newContext();
  const visitor = await replayAction(anonymous.request, legit, body);
  expect(await visitor.text()).toContain("unauthenticated");

  const after = await page.request.get(`/api/v1/cases/${target}`);
  expect((await after.json()).state).toBe("parked");
  await operator.close();
  await anonymous.close();
});
