import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ADMIN_SECTIONS } from "@/components/admin/admin-sections";
import { CaseHeader } from "@/components/case/case-sections";
import { NAV_ITEMS } from "@/components/console/nav-items";
import { CaseFlagsSummary } from "@/components/overview/case-flags-summary";
import { PausedProviders } from "@/components/overview/paused-providers";
import { can, type Permission, ROLES, type Role } from "@/lib/domain/roles";
import type { CaseDetail } from "@/lib/services/case/get-case";

// Decision 057: the overview and the case page link to finance and admin pages only for the roles
// those pages let in; everyone else reads who decides instead of following a link to a 403.

/** The permission each console page checks, by its path: the navigation's and the admin area's own tables. */
const PAGES: [string, Permission | null][] = [
  ...ADMIN_SECTIONS.map((s): [string, Permission] => [s.href, s.permission]),
  ...NAV_ITEMS.filter((item) => item.href !== "/admin/users").map((i): [string, Permission | null] => [
    i.href,
    i.permission,
  ]),
  ["/cases", "case:read"],
];

function permissionOf(href: string): Permission | null | undefined {
  const path = new URL(href, "http://console").pathname;
  const match = PAGES.filter(([page]) => path === page || path.startsWith(`${page}/`)).sort(
    (a, b) => b[0].length - a[0].length,
  )[0];
  return match ? match[1] : undefined;
}

const hrefsIn = (html: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((m) => (m[1] ?? "").replaceAll("&amp;", "&"));

const stats = {
  needsDecision: [{ currency: "USD", count: 2, micros: "3000000" }],
  escalatedOpen: 1,
  chargedAfterRelease: [{ currency: "USD", count: 1, micros: "1000000" }],
} as unknown as Parameters<typeof CaseFlagsSummary>[0]["stats"];
const paused = [{ provider: "replicate", pausedUntil: "2026-12-05T12:00:00Z" }] as Parameters<
  typeof PausedProviders
>[0]["paused"];
const detail = {
  id: "00000000-0000-4000-8000-000000000001",
  producer: "shop-app",
  operationId: "order-1",
  attemptId: "order-1-a1",
  openedAt: "2026-12-05T10:00:00Z",
  progress: { waitingOn: { party: "finance", why: "the hold needs a decision", until: null }, lastAttempt: null },
  stage: "polling",
  state: "resolved",
  outcome: "recovered",
  escalation: null,
  redactedAt: null,
  holdOpen: true,
  producerNotTold: [],
  chargedAfterRelease: true,
  assignee: null,
  heldMicros: 1_000_000,
  currency: "USD",
  provider: "replicate",
  model: "omni-flash-720p",
  providerCapabilities: { notes: [] },
  providerJobId: null,
  providerJobPage: null,
  episode: 1,
} as unknown as CaseDetail;

function rendered(roles: Role[]): string {
  return [
    renderToStaticMarkup(createElement(CaseFlagsSummary, { stats, roles })),
    renderToStaticMarkup(createElement(PausedProviders, { paused, roles })),
    renderToStaticMarkup(createElement(CaseHeader, { detail, now: Date.parse("2026-12-05T11:00:00Z"), roles })),
  ].join("\n");
}

describe("links on the overview and the case page", () => {
  it.each(ROLES.map((role) => [role]))("lead a %s only to pages that let them in", (role) => {
    const hrefs = hrefsIn(rendered([role])).filter((href) => href.startsWith("/"));
    for (const href of hrefs) {
      const permission = permissionOf(href);
      expect(permission, `${href} is a console page`).not.toBeUndefined();
      if (permission) expect(can([role], permission), `${role} may open ${href}`).toBe(true);
    }
  });

  it("say who decides where a role has no link", () => {
    const reviewer = rendered(["reviewer"]);
    expect(reviewer).not.toContain("Decide in finance");
    expect(reviewer).toContain("Finance decides these holds.");
    expect(reviewer).toContain("Finance decides this hold.");
    expect(reviewer).toContain("Finance decides this charge.");
    expect(reviewer).toContain("an admin can resume it under Admin → Providers.");
    const finance = rendered(["finance"]);
    expect(hrefsIn(finance)).toEqual(
      expect.arrayContaining([
        "/finance?view=needs_decision#holds",
        "/finance?view=needs_decision&producer=shop-app#holds",
      ]),
    );
    expect(hrefsIn(rendered(["admin"]))).toContain("/admin/providers");
  });
});
