import { expect, test } from "./fixtures/login";

test("a reviewer reconciles an uncertain submission, then approves resume_poll", async ({ page, login }) => {
  await login("reviewer@demo.local");
  await page.goto("/queue?q=demo-order-1000");
  await page.getByRole("link", { name: "demo-order-1000" }).click();
  await expect(page.getByText("Uncertain submission").first()).toBeVisible();
  // Before reconciliation, no recovery can be approved.
  await expect(page.getByRole("button", { name: /Approve/ })).toHaveCount(0);

  const attach = page.getByRole("form", { name: "Attach the discovered provider job" });
  await attach.getByLabel("Provider job ID").fill("pred-found-in-provider-list");
  await attach
    .getByLabel("Evidence")
    .fill("Found in the provider's job list: same model, prompt hash and submit minute.");
  await attach.getByRole("button", { name: "Attach job" }).click();

  const approve = page.getByRole("form", { name: "Approve: resume status checks" });
  await expect(approve).toBeVisible();
  await approve.getByLabel("Evidence").fill("Job confirmed on the provider; resume status checks.");
  await approve.getByRole("button", { name: "Approve: resume status checks" }).click();
  await expect(page.getByText("Queued", { exact: true }).first()).toBeVisible();
  // What it waits on is said at once: the approval queued it for the worker.
  await expect(page.getByTestId("waiting-on").first()).toContainText("waiting on the worker");
  const timeline = page.getByTestId("timeline");
  await expect(timeline).toContainText("approved");
  await expect(timeline).toContainText("reconciled_job_found");
  await expect(timeline).toContainText("pred-found-in-provider-list");
  // One readable sentence per event; the stored name and the raw evidence are folded away.
  await expect(timeline.getByText("Provider job pred-found-in-provider-list attached")).toBeVisible();
  await expect(timeline.getByText("Approved: resume status checks")).toBeVisible();
});
