import { expect, test } from "./fixtures/login";
import { createApiKey, parkThroughApi } from "./fixtures/producer";

// A note typed into the case page before the page is live is kept and saved (the note form reads
// its text from the field when it is sent, and its button waits for the page to be live). The
// page's scripts are held back until the note is typed, so the typing happens before hydration on
// any machine, with no timing involved.
const run = Date.now().toString(36);

// The browser's clock runs ten minutes ahead of the server's, as a person's laptop clock may: a
// first render that reckoned the case's age or its time-bound choices from the browser's clock
// instead of the moment the server read the case would differ from the server's HTML, and React
// would replace that HTML (and the typed note with it) on hydration. With the clocks apart by
// minutes, that difference shows on any machine, not only when a second ticks over meanwhile.
test("a note typed before the case page is live is kept and saved", async ({ page, login, request }) => {
  test.setTimeout(90_000);
  const apiKey = createApiKey(`e2e-early-note-${run}`);
  const caseId = await parkThroughApi(request, apiKey, {
    operationId: `e2e-early-note-${run}`,
    stage: "polling",
    amountMicros: 1_000_000,
    currency: "PLN",
  });
  await login("operator@demo.local");
  // React reports a hydration mismatch as an uncaught page error (minified #418 in a production build).
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.clock.install({ time: Date.now() + 10 * 60_000 });

  let release = () => {};
  const scriptsHeld = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/_next\/static\/.*\.js(\?.*)?$/, async (route) => {
    await scriptsHeld;
    await route.continue();
  });
  await page.goto(`/cases/${caseId}`, { waitUntil: "domcontentloaded" });
  const note = page.getByRole("form", { name: "Add a note" });
  const text = `Typed before the page was live ${run}`;
  await note.getByLabel("Note").fill(text);
  // Not live yet (the keyboard hint carries no "on" mark, which hydration sets), and the button waits.
  await expect(page.locator("p[data-keys=on]")).toHaveCount(0);
  await expect(note.getByRole("button", { name: "Add note" })).toBeDisabled();

  release();
  // The click waits for the button, which hydration enables; the text typed before is still there.
  await note.getByRole("button", { name: "Add note" }).click();
  await expect(note.getByRole("status")).toHaveText("Done.");
  await expect(note.getByLabel("Note")).toHaveValue("");
  expect(pageErrors, "the server's HTML was kept on hydration").toEqual([]);
  await page.reload();
  await expect(page.getByText(text).first()).toBeVisible();
});
