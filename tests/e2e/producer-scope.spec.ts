import { reviewDecision } from "./fixtures/decide";
import { nextActionCall, replayAction } from "./fixtures/forge";
import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// An agency's reviewer limited to one of two shops (decision 035). Both shops park a case under the
// same operation ID, so only the producer tells them apart. The admin sets the limit in the console;
// the person then finds only their shop's case, and the other shop's case is not found by page, by
// API, or by replaying their own approval with the other case's ID.
const run = Date.now().toString(36);
const shopA = `e2e-scope-a-${run}`;
const shopB = `e2e-scope-b-${run}`;
const operationId = `e2e-scope-${run}`;
const email = `agency-${run}@example.com`;

test("a reviewer limited to one shop sees and decides its cases only; the other shop's case is not found, even by a forged action", async ({
  page,
  login,
  request,
}) => {
  // Minting two keys starts two Node processes before the browser work begins.
  test.setTimeout(120_000);
  // One provider job belongs to one operation, so the other shop's case is an uncertain submission.
  const park = (key: string, stage: "polling" | "submission_uncertain") =>
    parkThroughApi(request, key, { operationId, stage, amountMicros: 1_000_000, currency: "XTS" });
  const mine = await park(createApiKey(shopA), "polling");
  const theirs = await park(createApiKey(shopB), "submission_uncertain");

  await login("admin@demo.local");
  await page.goto("/admin/users");
  await page.getByLabel("Email").fill(email);
  await page
    .getByRole("group", { name: "Roles", exact: true })
    .getByLabel(/^reviewer/)
    .check();
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByTestId("secret-reveal")).toBeVisible();
  const editor = page.getByRole("form", { name: `Producers of agency-${run}` });
  // Chosen from the producers the deployment knows (decision 057), not typed.
  await editor
    .getByRole("group", { name: `Producers for agency-${run}` })
    .getByLabel(shopA, { exact: true })
    .check();
  await editor.getByRole("button", { name: "Save producers" }).click();
  await expect(editor.getByRole("status")).toHaveText("Saved.");
  // An admin is never limited: the editor is not offered on an admin's row.
  await expect(page.getByRole("row").filter({ hasText: "admin@demo.local" })).toContainText("Every producer (admin)");

  await page.context().clearCookies();
  await login(email);
  await page.goto("/profile");
  await expect(page.getByTestId("profile-producers")).toHaveText(`only ${shopA} (set by an admin)`);
  await page.goto(`/queue?q=${operationId}&state=parked`);
  const rows = page.getByTestId("queue-row");
  await expect(rows).toHaveCount(1);
  await expect(page.locator("#queue-filter-producer option")).toHaveText(["any", shopA]);
  // Alerts count every producer together: not in the menu, and closed.
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Alerts" })).toHaveCount(0);
  expect((await page.goto("/alerts"))?.status()).toBe(403);
  expect((await page.goto(`/cases/${theirs}`))?.status()).toBe(404);
  // By operation ID (decision 057): the one case of theirs that carries it, and nothing says the other exists.
  await page.goto(`/cases/${operationId}`);
  await expect(page).toHaveURL(new RegExp(`/cases/${mine}$`));
  const byApi = await page.request.get(`/api/v1/cases/${theirs}`);
  expect(byApi.status()).toBe(404);
  expect((await byApi.json()).error.code).toBe("not_found");

  // The person's own approval, replayed with the other shop's case ID.
  await page.goto(`/cases/${mine}`);
  const confirm = await reviewDecision(page, "Resume status checks", "provider healthy again");
  const captured = nextActionCall(page);
  await confirm.getByRole("button", { name: "Approve status checks" }).click();
  const legit = await captured;
  await expect(page.getByTestId("timeline")).toContainText("provider healthy again");
  const forged = await replayAction(page.request, legit, (legit.postData() ?? "").replaceAll(mine, theirs));
  expect(await forged.text()).toContain("not_found");

  // Seen by someone who sees every producer: the other shop's case is untouched.
  await page.context().clearCookies();
  await login("reviewer@demo.local");
  const after = await page.request.get(`/api/v1/cases/${theirs}`);
  expect(await after.json()).toMatchObject({ state: "parked", producer: shopB });
  // Both shops used the operation ID: someone who sees both chooses between them.
  await page.goto(`/cases/${operationId}`);
  const matches = page.getByTestId("operation-matches");
  await expect(matches.getByRole("link")).toHaveText([shopA, shopB]);
  await matches.getByRole("link", { name: shopB }).click();
  await expect(page).toHaveURL(new RegExp(`/cases/${theirs}$`));
});
