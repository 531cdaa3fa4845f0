import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures/login";
import { openPage } from "./fixtures/open-page";

// The console follows the operating system's colour scheme: under a dark preference every page
// is drawn dark with light text (and its cards too), under a light one the other way round.
const PAGES: { email: string | null; path: string }[] = [
  { email: null, path: "/sign-in" },
  { email: "operator@demo.local", path: "/overview" },
  { email: "operator@demo.local", path: "/queue" },
  { email: "operator@demo.local", path: "/profile" },
  { email: "admin@demo.local", path: "/bulk-jobs" },
  { email: "reviewer@demo.local", path: "case" },
  { email: "finance@demo.local", path: "/finance" },
  { email: "admin@demo.local", path: "/admin" },
];

/** Relative luminance (WCAG) of the page's background, its text and its first card. */
async function luminances(page: Page) {
  return page.evaluate(() => {
    // The canvas turns any CSS colour (oklch included) into sRGB bytes.
    const context = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
    if (!context) throw new Error("no canvas");
    const luminance = (colour: string) => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = colour;
      context.fillRect(0, 0, 1, 1);
      const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data;
      const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const body = getComputedStyle(document.body);
    const card = document.querySelector(".bg-white");
    return {
      background: luminance(body.backgroundColor),
      text: luminance(body.color),
      card: card ? luminance(getComputedStyle(card).backgroundColor) : null,
    };
  });
}

for (const scheme of ["dark", "light"] as const) {
  test(`every console page is drawn in the ${scheme} scheme the system asks for`, async ({ page, login }) => {
    await page.emulateMedia({ colorScheme: scheme });
    for (const { email, path } of PAGES) {
      if (email) await login(email);
      await openPage(page, path);
      // Declared in the page itself too, so the browser picks the scheme before the stylesheet loads.
      await expect(page.locator('meta[name="color-scheme"]')).toHaveAttribute("content", "light dark");
      const seen = await luminances(page);
      const where = `${path}: ${JSON.stringify(seen)}`;
      if (scheme === "dark") {
        expect(seen.background, where).toBeLessThan(0.05);
        expect(seen.text, where).toBeGreaterThan(0.6);
        if (seen.card !== null) expect(seen.card, where).toBeLessThan(0.05);
      } else {
        expect(seen.background, where).toBeGreaterThan(0.9);
        expect(seen.text, where).toBeLessThan(0.05);
        if (seen.card !== null) expect(seen.card, where).toBeGreaterThan(0.9);
      }
    }
  });
}
