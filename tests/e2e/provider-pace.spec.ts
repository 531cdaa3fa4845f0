import { expect, test } from "./fixtures/login";

// An admin sets the one request rate every worker process shares with a provider (decision 030),
// and clears it again at the end so no other journey is paced.
test("an admin sets a provider's shared request rate, reads it over the API, and clears it", async ({
  page,
  login,
}) => {
  await login("admin@demo.local");
  await page.goto("/admin/providers");
  const fal = page.getByRole("listitem").filter({ has: page.getByTestId("pace-fal") });
  const field = fal.getByLabel("API requests per second to fal, all workers together");
  const save = fal.getByRole("button", { name: "Save rate" });
  await expect(page.getByTestId("pace-fal")).toContainText("Request rate: unpaced");

  await field.fill("fast");
  await save.click();
  await expect(page.getByText(/a number of requests per second/)).toBeVisible();
  await expect(field).toBeFocused();

  await field.fill("5");
  await save.click();
  await expect(page.getByText("Saved: 5 requests per second, for all workers together.")).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("pace-fal")).toContainText("5 per second, all workers together");
  const read = await page.request.get("/api/v1/admin/provider-pace");
  expect(read.status()).toBe(200);
  expect((await read.json()).providers).toContainEqual({ provider: "fal", requestsPerSecond: 5, holdOffUntil: null });

  await field.fill("");
  await save.click();
  await expect(page.getByText("Saved: unpaced")).toBeVisible();

  // Finance may not change it, through the API either.
  await login("finance@demo.local");
  const refused = await page.request.put("/api/v1/admin/provider-pace", {
    data: { provider: "fal", requestsPerSecond: 1 },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(refused.status()).toBe(403);
});
