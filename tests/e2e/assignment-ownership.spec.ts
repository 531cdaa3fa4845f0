import pg from "pg";
import { databaseUrl, expect, loginAs, test } from "./fixtures/login";

// An admin makes assignment mean ownership: a second reviewer then reads a case assigned to the
// demo reviewer with no decision offered and is told whose it is; the assignee still decides.
test("with assignment as ownership, only the assignee is offered the decisions on an assigned case", async ({
  browser,
  page,
  login,
}) => {
  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO users (email, name, roles) VALUES ('second-reviewer@example.com', 'Second reviewer', '{reviewer}')
       ON CONFLICT (email) DO NOTHING`,
    );
    await login("admin@demo.local");
    await page.goto("/admin/users");
    const form = page.getByRole("form", { name: "Assignment" });
    await form.getByLabel(/Assignment means ownership/).check();
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("status")).toHaveText("Saved: assignment means ownership.");

    const operator = await browser.newContext();
    const operatorPage = await operator.newPage();
    await loginAs(operatorPage, "operator@demo.local");
    const listed = await operatorPage.request.get("/api/v1/cases?stage=polling&state=parked&limit=1");
    const caseId = ((await listed.json()).items as { id: string }[])[0]?.id;
    expect(caseId).toBeDefined();
    await operatorPage.goto(`/cases/${caseId}`);
    const assign = operatorPage.getByRole("form", { name: "Assign" });
    await assign.getByLabel("Assignee").selectOption({ label: "Demo reviewer (reviewer@demo.local)" });
    await assign.getByLabel("Reason (kept in the timeline)").fill("yours");
    await assign.getByRole("button", { name: "Assign" }).click();
    await expect(operatorPage.getByTestId("timeline")).toContainText("Assigned");
    await operator.close();

    const second = await browser.newContext();
    const secondPage = await second.newPage();
    await loginAs(secondPage, "second-reviewer@example.com");
    await secondPage.goto(`/cases/${caseId}`);
    await expect(secondPage.getByTestId("owned-elsewhere")).toContainText("Assigned to Demo reviewer");
    await expect(secondPage.getByRole("radio")).toHaveCount(0);
    await second.close();

    const owner = await browser.newContext();
    const ownerPage = await owner.newPage();
    await loginAs(ownerPage, "reviewer@demo.local");
    await ownerPage.goto(`/cases/${caseId}`);
    await expect(ownerPage.getByRole("radio", { name: /Resume status checks/ })).toBeVisible();
    await expect(ownerPage.getByTestId("owned-elsewhere")).toHaveCount(0);
    await owner.close();
  } finally {
    // Later journeys decide assigned demo cases: the setting goes back to its default whatever happened.
    await client.query("UPDATE console_settings SET assignment_is_ownership = false");
    await client.end();
  }
});
