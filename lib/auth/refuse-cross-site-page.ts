import { headers } from "next/headers";
import { forbidden } from "next/navigation";
import { isCrossSite } from "./cross-site";

/**
 * For a printable evidence page (lib/auth/cross-site.ts): opened from another site, it renders the
 * 403 page instead, before reading the session or anything else. The proxy refuses these first; this
 * keeps the page safe wherever it is served from.
 */
export async function refuseCrossSitePage(): Promise<void> {
  if (isCrossSite((await headers()).get("sec-fetch-site"))) forbidden();
}
