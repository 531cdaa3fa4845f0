/**
 * The few pages the server answers itself, before Next.js renders anything: plain HTML with
 * nothing to run or load (their policy allows none), a heading, a sentence and a way back.
 */
export const REFUSAL_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

function page(title: string, sentence: string, back: { href: string; label: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(sentence)}</p>
<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p></main></body></html>
`;
}

/** A path whose percent-escapes do not decode names no page (server/malformed-url.ts). */
export const MALFORMED_URL_PAGE = page(
  "400 · Bad address",
  "This address has a percent-escape that does not decode (such as %FF), so it names no page of the console.",
  { href: "/", label: "Back to the console" },
);

/**
 * A printable evidence page (a whole case file, one click from a signed export), opened from another
 * site: refused, with a link to a page of the console from which the user can open it on purpose.
 */
export function crossSiteRefusalPage(back: string): string {
  return page(
    "403 · Opened from another site",
    "This page shows whole case files and exports their evidence from there, so the console shows it only when it is opened from the console itself. Open it again from there.",
    { href: back, label: "Open it in the console" },
  );
}
