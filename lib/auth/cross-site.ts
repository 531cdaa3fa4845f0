/**
 * Fetch Metadata (`Sec-Fetch-Site`): a browser says whether a request came from this origin
 * (`same-origin`), a sibling host (`same-site`), the user's own typing or bookmark (`none`) or
 * another site (`cross-site`). The session cookie is sent on a top-level navigation from another
 * site, so a GET that writes (an evidence export's audit rows) would be a link any site could make
 * a signed-in user follow. Such GETs refuse `cross-site`; every other value, and no header at all
 * (programs with a bearer token, older browsers), is let through.
 */
export function isCrossSite(secFetchSite: string | null | undefined): boolean {
  return secFetchSite?.trim().toLowerCase() === "cross-site";
}

export const CROSS_SITE_MESSAGE =
  "This request came from another site, and it would record an export: open it from the console itself.";

/**
 * The console's printable evidence pages: showing one writes nothing since decision 057 (its
 * download, the API route, is the audited export), but each is a whole case file one click from an
 * export, so it is not a link another site can make a signed-in user follow either. `back` is where
 * the refusal points instead.
 */
const WRITING_PAGES: { pattern: RegExp; back: (match: RegExpExecArray, search: string) => string }[] = [
  { pattern: /^\/cases\/([^/]+)\/evidence\/?$/, back: (match) => `/cases/${match[1]}` },
  { pattern: /^\/queue\/evidence\/?$/, back: (_match, search) => `/queue${search}` },
];

/** For a page that writes when shown, the page to offer instead; null for every other page. */
export function writingPage(pathname: string, search: string): { back: string } | null {
  for (const page of WRITING_PAGES) {
    const match = page.pattern.exec(pathname);
    if (match) return { back: page.back(match, search) };
  }
  return null;
}
