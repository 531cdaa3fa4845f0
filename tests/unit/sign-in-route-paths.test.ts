import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import * as signIn from "@/app/api/auth/[...nextauth]/route";

// Found by `verify:fuzz` at 100,000 requests: a GET under the credentials callback with one more segment
// reached the auth library, which threw ("Callback for provider type credentials not supported"): a 500.
describe("the sign-in library's routes", () => {
  it.each([
    ["callback", "credentials"],
    ["callback", "credentials", "oidc"],
    ["signin", "credentials", "extra"],
    ["csrf", "x", "y"],
  ])("answer GET /api/auth/%s/%s… 404 in the error shape, before the library sees it", async (...segments) => {
    const request = new NextRequest(`http://localhost/api/auth/${segments.join("/")}?error=1`);
    const answer = await signIn.GET(request, { params: Promise.resolve({ nextauth: segments }) });
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ error: { code: "not_found" } });
  });
});
