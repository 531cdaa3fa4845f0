import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";

// A reviewer opens a case to decide it (decision 062): what happened and what happens next, then
// the decision, reachable in a few key presses and on the first screen of a laptop and of a phone;
// the money and the timeline after it; the technical detail last, folded, as labelled fields with
// the stored JSON one step further in. Keys move between the view's cases and back to the queue.

const VIEW = "stage=submission_uncertain";

/** demo-order-1000's case page, loaded afresh (focus at the top), as opened from the view of uncertain submissions. */
async function openCase(page: Page): Promise<string> {
  const found = await page.request.get("/api/v1/cases?q=demo-order-1000");
  const caseId = (await found.json()).items[0].id as string;
  await page.goto(`/cases/${caseId}?from=${encodeURIComponent(VIEW)}`);
  await expect(page.getByRole("heading", { name: /Operation demo-order-1000/ })).toBeVisible();
  // Keys typed before the page is live go nowhere; the hint's mark says when they count.
  await expect(page.locator("[data-keys]")).toHaveAttribute("data-keys", "on");
  return caseId;
}

const firstDecision = (page: Page) => page.getByRole("region", { name: "Decisions" }).getByRole("radio").first();

/** Tab presses from the top of the page until a decision's control has focus, following the skip link. */
async function tabsToDecision(page: Page): Promise<number> {
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to decision" })).toBeFocused();
  await page.keyboard.press("Enter");
  let presses = 1;
  while (presses < 10) {
    await page.keyboard.press("Tab");
    presses += 1;
    const inDecision = await page.evaluate(() => {
      const active = document.activeElement;
      return !!active?.closest("#decision") && ["INPUT", "BUTTON", "TEXTAREA", "SELECT"].includes(active.tagName);
    });
    if (inDecision) return presses;
  }
  return presses;
}

test.describe("at 1280 x 800", () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test("the decision comes first: a skip link, within 5 Tab stops and above the fold", async ({ page, login }) => {
    await login("reviewer@demo.local");
    await openCase(page);
    const box = await firstDecision(page).boundingBox();
    expect(box, "a decision is offered").not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
    expect(await tabsToDecision(page)).toBeLessThanOrEqual(5);
    await expect(firstDecision(page)).toBeFocused();

    // In reading order: what happened, the decision, the money, the timeline, the technical details.
    const order = await page.evaluate(() =>
      ["h1", "#actions-heading", "#money-heading", "#timeline-heading", "#technical-heading"].map(
        (selector) => (document.querySelector(selector)?.getBoundingClientRect().top ?? Number.NaN) + window.scrollY,
      ),
    );
    expect(
      order.every((top) => top >= 0),
      `headings at ${order.join(", ")}`,
    ).toBe(true);
    expect(order.slice(2)).toEqual([...order.slice(2)].sort((a, b) => a - b));
    expect(order[0]).toBeLessThan(order[1] ?? 0);
  });

  test("technical details are one folded section of labelled fields, the raw JSON behind a toggle", async ({
    page,
    login,
  }) => {
    await login("reviewer@demo.local");
    await openCase(page);
    const technical = page.getByTestId("technical-details");
    // One section, folded: none of its fields shows until it is opened.
    await expect(page.getByTestId("technical-details")).toHaveCount(1);
    await expect(technical.getByTestId("request-fields")).toBeHidden();
    await expect(technical).toContainText(/Prompt: \d+ characters, (720p|1080p), \d+ s/);
    await technical.getByText("Technical details").click();
    const request = technical.getByTestId("request-fields");
    await expect(request).toBeVisible();
    await expect(request).toContainText(/Prompt\s*\d+ characters/);
    await expect(request).toContainText(/Duration\s*\d+ s/);
    await expect(technical.getByTestId("technical-fields")).toContainText("Fingerprint");
    await expect(technical.getByTestId("evidence-fields")).toContainText("Source");
    // The stored JSON (the prompt's digest included) only behind its own toggle.
    const raw = technical.locator("pre").first();
    await expect(raw).toBeHidden();
    await technical.getByText("Raw JSON (as stored)").click();
    await expect(raw).toBeVisible();
    await expect(raw).toContainText('"sha256"');
    // No "Details" toggle of the timeline stands between the page's top and the decision.
    const togglesBefore = await page.evaluate(() => {
      const decision = document.getElementById("decision");
      return [...document.querySelectorAll("summary")].filter(
        (s) => decision && s.compareDocumentPosition(decision) & Node.DOCUMENT_POSITION_FOLLOWING,
      ).length;
    });
    expect(togglesBefore).toBe(0);
  });

  test("keys: d to the decision, j and k to the view's next and previous case, Escape to the queue", async ({
    page,
    login,
  }) => {
    await login("reviewer@demo.local");
    const caseId = await openCase(page);
    await page.keyboard.press("d");
    await expect(firstDecision(page)).toBeFocused();
    // Working in the decision (or typing anywhere), the keys are letters, not moves.
    const evidence = page.getByRole("region", { name: "Decisions" }).getByLabel("Evidence");
    await evidence.fill("");
    await evidence.press("j");
    await evidence.press("Escape");
    await expect(evidence).toHaveValue("j");
    expect(page.url()).toContain(`/cases/${caseId}`);
    await evidence.fill("");
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    const hrefOf = async (rel: string) => {
      const link = page.locator(`a[rel="${rel}"]`);
      return (await link.count()) > 0 ? link.getAttribute("href") : null;
    };
    const next = await hrefOf("next");
    const previous = await hrefOf("prev");
    expect(next ?? previous, "demo-order-1000 has a neighbour in its view").not.toBeNull();
    const [there, back] = next ? (["j", "k"] as const) : (["k", "j"] as const);
    await page.keyboard.press(there);
    await expect(page).toHaveURL((url) => `${url.pathname}${url.search}` === (next ?? previous));
    await expect(page.locator("[data-keys]")).toHaveAttribute("data-keys", "on");
    await expect(page.getByRole("heading", { name: /Operation demo-order-1000/ })).toHaveCount(0);
    await page.keyboard.press(back);
    await expect(page).toHaveURL(new RegExp(`/cases/${caseId}`));
    await expect(page.getByRole("heading", { name: /Operation demo-order-1000/ })).toBeVisible();
    await expect(page.locator("[data-keys]")).toHaveAttribute("data-keys", "on");
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(
      (url) => url.pathname === "/queue" && url.searchParams.get("stage") === "submission_uncertain",
    );
  });
});

test.describe("at 390 x 844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the decision is on the first screen of a phone", async ({ page, login }) => {
    await login("reviewer@demo.local");
    await openCase(page);
    const box = await firstDecision(page).boundingBox();
    expect(box, "a decision is offered").not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
    expect(await tabsToDecision(page)).toBeLessThanOrEqual(5);
  });
});

test.describe("times in the reader's zone", () => {
  test.use({ timezoneId: "America/New_York" });

  test("times read in local time with UTC on hover, or in UTC as chosen on the Profile page", async ({
    page,
    login,
  }) => {
    await login("reviewer@demo.local");
    await openCase(page);
    const time = page.getByTestId("timeline").locator("time").first();
    // December in New York: five hours behind UTC, the zone named.
    await expect(time).toHaveText(/\d{4}, \d{2}:\d{2} GMT-5$/);
    await expect(time).toHaveAttribute("title", /UTC \(\d{4}-\d{2}-\d{2}T[\d:.]+Z\)$/);
    await expect(time).toHaveAttribute("datetime", /Z$/);

    await page.goto("/profile");
    const form = page.getByRole("form", { name: "Times" });
    await expect(form.getByRole("radio", { name: /My local time/ })).toBeChecked();
    await expect(form).toContainText("America/New_York");
    await form.getByRole("radio", { name: "UTC" }).check();
    await form.getByRole("button", { name: "Save" }).click();
    await expect(form.getByRole("status")).toHaveText("Saved: times now show in UTC.");

    await openCase(page);
    await expect(page.getByTestId("timeline").locator("time").first()).toHaveText(/\d{4}, \d{2}:\d{2} UTC$/);
    await page.goto("/profile");
    await expect(page.getByRole("form", { name: "Times" }).getByRole("radio", { name: "UTC" })).toBeChecked();
  });
});
