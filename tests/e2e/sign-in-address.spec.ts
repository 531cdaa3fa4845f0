import { expect, test } from "@playwright/test";
import pg from "pg";
import { SOCKET_ADDRESS_HEADER } from "@/lib/auth/client-address";
import { databaseUrl } from "./fixtures/login";

test("sign-in limits count the connection's address, not one a client writes into a header", async ({ page }) => {
  // Without TRUSTED_PROXIES neither header may choose the rate-limit bucket.
  await page.setExtraHTTPHeaders({ "x-forwarded-for": "203.0.113.77", [SOCKET_ADDRESS_HEADER]: "203.0.113.78" });
  const email = "address-check@demo.local";
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("Invalid email or password.");

  const client = new pg.Client({ connectionString: await databaseUrl() });
  await client.connect();
  const { rows } = await client
    .query<{ key: string }>("SELECT key FROM rate_limit_buckets WHERE key LIKE $1", [
      `login:account-address:${email}|%`,
    ])
    .finally(() => client.end());
  expect(rows.map((row) => row.key.split("|")[1])).toEqual([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]);
});
