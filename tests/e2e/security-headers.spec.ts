import type { Page, Response } from "@playwright/test";
import { expect, test } from "./fixtures/login";

// Every console page, loaded and used in Chromium under the app's Content-Security-Policy, with
// no violation: the policy is strict (a nonce per response, 'strict-dynamic', no inline style)
// and yet nothing the console needs is refused. The login fixture watches every journey for
// violations (fixtures/csp-watch.ts); this one makes sure each page is visited at least once.

const PAGES_BY_ROLE: Record<string, string[]> = {
  "admin@demo.local": [
    "/overview",
    "/queue",
    "/admin",
    "/admin/users",
    "/admin/api-keys",
    "/admin/worker-tokens",
    "/admin/prices",
    "/admin/providers",
    "/profile",
    // The 403 page, rendered inside a console page.
    "/finance",
  ],
  "finance@demo.local": ["/finance", "/overview", "/profile"],
  "operator@demo.local": ["/queue", "/admin/users"],
};

/** The headers a page carries: a fresh nonce, the directives that matter, and no framework banner. */
async function expectPageHeaders(response: Response | null, path: string): Promise<string> {
  expect(response, path).not.toBeNull();
  const headers = (response as Response).headers();
  const policy = headers["content-security-policy"] ?? "";
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
  expect(nonce, `${path} CSP: ${policy}`).toBeTruthy();
  for (const directive of [
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "connect-src 'self'",
  ]) {
    expect(policy, path).toContain(directive);
  }
  expect(policy, path).not.toContain("unsafe-inline");
  expect(policy, path).not.toContain("unsafe-eval");
  expect(headers["x-powered-by"], path).toBeUndefined();
  expect(headers["x-frame-options"], path).toBe("DENY");
  expect(headers["x-content-type-options"], path).toBe("nosniff");
  expect(headers["permissions-policy"], path).toContain("camera=()");
  expect(headers["permissions-policy"], path).toContain("microphone=()");
  expect(headers["permissions-policy"], path).toContain("geolocation=()");
  // The test server's address is plain http: no HSTS there.
  expect(headers["strict-transport-security"], path).toBeUndefined();
  return nonce as string;
}

/** The page's own scripts ran (the client router is up), so the policy let them through. */
async function expectScriptsRan(page: Page, path: string) {
  await page.waitForLoadState("networkidle");
  const version = await page.evaluate(() => (window as unknown as { next?: { version?: string } }).next?.version);
  expect(version, `${path}: Next.js client runtime`).toBeTruthy();
}

test.describe("the Content-Security-Policy", () => {
  test("the violation watch sees a refusal when a page breaks the policy", async ({ page, policyViolations }) => {
    await page.goto("/sign-in");
    await page.evaluate(() => {
      document.body.insertAdjacentHTML("beforeend", '<p style="color: red">injected</p>');
    });
    await expect.poll(() => policyViolations.length).toBeGreaterThan(0);
    expect(policyViolations.join("\n")).toMatch(/style-src/);
    // Seen, so the watch works; cleared, so the fixture does not fail this test for it.
    policyViolations.splice(0);
  });

  test("signing in and every console page, for each role, load with no violation", async ({
    page,
    context,
    login,
    policyViolations,
  }) => {
    test.setTimeout(120_000);

    // Signed out: the sign-in page, a page that does not exist, and signing in through the form.
    const signIn = await page.goto("/sign-in");
    const firstNonce = await expectPageHeaders(signIn, "/sign-in");
    const body = await (signIn as Response).text();
    const scriptTags = body.match(/<script\b[^>]*>/g) ?? [];
    expect(scriptTags.length).toBeGreaterThan(0);
    for (const tag of scriptTags) expect(tag).toContain(`nonce="${firstNonce}"`);
    await expectScriptsRan(page, "/sign-in");

    const missing = await page.goto("/no-such-page");
    expect(missing?.status()).toBe(404);
    const missingNonce = await expectPageHeaders(missing, "/no-such-page");
    expect(missingNonce).not.toBe(firstNonce);
    await expectScriptsRan(page, "/no-such-page");

    await page.goto("/sign-in");
    await page.getByLabel("Email").fill("operator@demo.local");
    await page.getByLabel("Password").fill("demo-recovery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-user")).toContainText("operator@demo.local");

    // A case page, reached by a client-side navigation from the queue and then loaded afresh.
    await page.goto("/queue");
    const caseLink = page.locator('a[href^="/cases/"]').first();
    const casePath = await caseLink.getAttribute("href");
    expect(casePath).toBeTruthy();
    await caseLink.click();
    await expect(page).toHaveURL(new RegExp(`${casePath}$`));
    await expectScriptsRan(page, "case page (client navigation)");
    await expectPageHeaders(await page.goto(casePath as string), casePath as string);
    await expectScriptsRan(page, casePath as string);

    for (const [email, paths] of Object.entries(PAGES_BY_ROLE)) {
      await context.clearCookies();
      await login(email);
      for (const path of paths) {
        const response = await page.goto(path);
        expect(response?.status(), `${email} ${path}`).toBeLessThan(500);
        await expectPageHeaders(response, `${email} ${path}`);
        await expectScriptsRan(page, `${email} ${path}`);
      }
    }

    expect(policyViolations).toEqual([]);
  });

  test("JSON routes carry the static headers and no framework banner, served by Next.js or directly", async ({
    request,
  }) => {
    const viaNext = await request.get("/api/v1/openapi.json");
    const direct = await request.post("/api/worker/tick", { data: {} });
    expect(direct.status()).toBe(401);
    for (const response of [viaNext, direct]) {
      const headers = response.headers();
      expect(headers["x-powered-by"]).toBeUndefined();
      expect(headers["x-frame-options"]).toBe("DENY");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["permissions-policy"]).toContain("camera=()");
      expect(headers["strict-transport-security"]).toBeUndefined();
    }
  });
});
