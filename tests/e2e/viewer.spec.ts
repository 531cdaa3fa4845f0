import { nextActionCall, replayAction } from "./fixtures/forge";
import { expect, loginAs, test } from "./fixtures/login";

// A viewer reads what an operator reads and changes nothing: no decisions, notes or assignments
// are offered, and the note action forged from an operator's own call is refused.
test("a viewer reads the overview, queue and a case, is offered nothing to change, and a forged note is refused", async ({
  browser,
  page,
  login,
}) => {
  await login("viewer@demo.local");
  for (const path of ["/overview", "/queue", "/profile"]) expect((await page.goto(path))?.status(), path).toBe(200);
  for (const path of ["/finance", "/admin/users"]) expect((await page.goto(path))?.status(), path).toBe(403);

  await page.goto("/queue?q=demo-order-1005");
  await page.getByRole("link", { name: "demo-order-1005" }).click();
  await expect(page.getByRole("heading", { name: /demo-order-1005/ })).toBeVisible();
  const caseUrl = page.url();
  await expect(page.getByTestId("read-only-explanation")).toContainText("needs the reviewer role");
  await expect(page.getByTestId("read-only-explanation")).not.toContainText("add notes");
  await expect(page.getByRole("radio")).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Add a note" })).toHaveCount(0);
  await expect(page.getByRole("form", { name: "Assign" })).toHaveCount(0);
  // No bulk bar and no row to pick, on a view every other role could act on in bulk.
  await page.goto("/queue?stage=polling&state=parked");
  await expect(page.getByTestId("queue-row").first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Act on several cases" })).toHaveCount(0);
  await expect(page.getByTestId("queue-row").first().getByRole("checkbox")).toHaveCount(0);

  // An operator's own note call, replayed by the viewer: refused, and no note is written.
  const operator = await browser.newContext();
  const operatorPage = await operator.newPage();
  await loginAs(operatorPage, "operator@demo.local");
  await operatorPage.goto(caseUrl);
  const note = operatorPage.getByRole("form", { name: "Add a note" });
  await note.getByLabel("Note").fill("operator's note");
  const captured = nextActionCall(operatorPage);
  await note.getByRole("button", { name: "Add note" }).click();
  const legit = await captured;
  await expect(note.getByRole("status")).toHaveText("Done.");
  const forged = await replayAction(
    page.request,
    legit,
    (legit.postData() ?? "").replace("operator's note", "viewer's forged note"),
  );
  expect(await forged.text()).toContain("forbidden");
  await page.goto(caseUrl);
  await expect(page.getByTestId("timeline")).toContainText("operator's note");
  await expect(page.getByTestId("timeline")).not.toContainText("viewer's forged note");
  await operator.close();
});
