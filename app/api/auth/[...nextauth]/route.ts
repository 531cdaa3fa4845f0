import type { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { errorResponse } from "@/lib/api/api-route";
import { authOptions } from "@/lib/auth/options";
import { AppError } from "@/lib/errors";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

/** Only same-site relative paths or same-origin URLs may be a callback (no open redirects, no crashes). */
function validCallback(req: NextRequest): boolean {
  const value = req.nextUrl.searchParams.get("callbackUrl");
  if (value === null) return true;
  if (value.startsWith("/") && !value.startsWith("//")) return true;
  try {
    return new URL(value).origin === req.nextUrl.origin;
  } catch {
    return false;
  }
}

// Options are built per request so that importing this module never reads the environment.
// The sign-in forms post URL-encoded bodies; anything else is refused before the library sees it.
async function handler(req: NextRequest, context: Context) {
  try {
    const type = req.headers.get("content-type") ?? "";
    if (req.method === "POST" && !type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      throw new AppError("unsupported_media_type", "Send sign-in forms as application/x-www-form-urlencoded.");
    }
    if (!validCallback(req)) throw new AppError("invalid_request", "callbackUrl must be a path on this site.");
    // Its routes are an action and at most a provider, in plain words (signin, callback/credentials,
    // csrf…); anything else is not one. The library reads only the first two segments, so a longer path
    // would reach the same action: a GET of the credentials callback, which it answers by throwing.
    const { nextauth } = await context.params;
    const [action, provider] = nextauth;
    const credentialsCallbackByGet = req.method === "GET" && action === "callback" && provider === "credentials";
    const plain = nextauth.length <= 2 && nextauth.every((segment) => /^[A-Za-z0-9_-]{1,64}$/.test(segment));
    if (!plain || credentialsCallbackByGet) {
      throw new AppError("not_found", "No such sign-in route.");
    }
    // Its parameters (callbackUrl, error, code, state…) are printable ASCII; other text would end up
    // in a redirect header that cannot carry it.
    for (const [key, value] of req.nextUrl.searchParams) {
      if (!/^[\x20-\x7e]*$/.test(key + value))
        throw new AppError("invalid_request", "Sign-in parameters must be plain ASCII.");
    }
    return await NextAuth(req, context, authOptions());
  } catch (error) {
    return errorResponse(error);
  }
}

export { handler as GET, handler as POST };
