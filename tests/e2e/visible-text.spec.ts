import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";
import { WIDTHS } from "./fixtures/page-checks";

// People-facing text (docs/design.md §10): no snake_case identifiers, no UUIDs and no unlabelled ISO
// times in what a person sees on any console page, at both widths and in both colour schemes.
// Folded sections (a closed <details>) and elements marked data-technical are left out: they are
// the technical record, opened on purpose. One sign-in per role, one page reused throughout.
const ADMIN_PAGES = [
  "/overview",
  "/queue",
  "/history",
  "/activity",
  "/alerts",
  "/bulk-jobs",
  "case",
  "/profile",
  "/admin/users",
  "/admin/api-keys",
  "/admin/worker-tokens",
  "/admin/prices",
  "/admin/providers",
  "/admin/alerts",
  "/admin/retention",
];
// Finance's desk is not an admin's page (hold:read): read as the finance role.
const FINANCE_PAGES = ["/finance", "/finance/usage", "/finance/unexplained"];

const PATTERNS: Array<[string, RegExp]> = [
  ["a snake_case identifier", /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g],
  ["a UUID", /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi],
  ["an ISO time", /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g],
];

/** The text a person sees: visible text nodes outside closed <details> and [data-technical]. */
function visibleText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      const text = node.textContent?.trim();
      if (!parent || !text) continue;
      if (parent.closest("script, style, noscript, template, [data-technical]")) continue;
      const folded = parent.closest("details");
      if (folded && !folded.open && !parent.closest("summary")) continue;
      if (parent.getClientRects().length === 0) continue;
      const style = getComputedStyle(parent);
      if (style.visibility === "hidden" || style.display === "none") continue;
      texts.push(text);
    }
    return texts;
  });
}

async function findings(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  for (const text of await visibleText(page)) {
    for (const [what, pattern] of PATTERNS) {
      for (const match of text.matchAll(pattern))
        found.push(`${where}: ${what} "${match[0]}" in "${text.slice(0, 80)}"`);
    }
  }
  return found;
}

async function scan(page: Page, paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    await page.setViewportSize(WIDTHS[0]);
    await openPage(page, path);
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      for (const colorScheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme });
        found.push(...(await findings(page, `${path} at ${size.width} px, ${colorScheme}`)));
      }
    }
  }
  return [...new Set(found)];
}

test("no console page shows a person an identifier, a UUID or an unlabelled ISO time", async ({ page, login }) => {
  test.setTimeout(240_000);
  await login("admin@demo.local");
  const found = await scan(page, ADMIN_PAGES);
  await login("finance@demo.local");
  found.push(...(await scan(page, FINANCE_PAGES)));
  expect(found, found.join("\n")).toEqual([]);
});
