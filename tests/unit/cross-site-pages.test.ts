import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { isCrossSite, writingPage } from "@/lib/auth/cross-site";
import { proxy } from "@/proxy";

// The printable evidence pages (whole case files, one click from an export; decision 057) refuse a
// link followed from another site (Fetch Metadata); the JSON routes, which write, are tested in
// tests/integration/get-routes-write.test.ts.
const CASE = "0b9d5a3e-6a55-4d5c-9a0c-2a1f4f0e9b11";
const open = (url: string, site?: string) =>
  proxy(new NextRequest(`http://localhost:3000${url}`, { headers: site ? { "sec-fetch-site": site } : {} }));

function pages(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return pages(file);
    return name === "page.tsx" ? [file] : [];
  });
}

describe("printable evidence pages", () => {
  it("reads Sec-Fetch-Site: only cross-site is refused", () => {
    expect(isCrossSite("cross-site")).toBe(true);
    expect(isCrossSite(" Cross-Site ")).toBe(true);
    for (const value of ["same-origin", "same-site", "none", "", null, undefined])
      expect(isCrossSite(value)).toBe(false);
  });

  it("are answered 403 by the proxy when opened from another site, with a link into the console", async () => {
    for (const [url, back] of [
      [`/cases/${CASE}/evidence`, `/cases/${CASE}`],
      ["/queue/evidence?stage=polling&q=%3Cb%3E", "/queue?stage=polling&amp;q=%3Cb%3E"],
    ] as const) {
      const response = open(url, "cross-site");
      expect(response.status, url).toBe(403);
      expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
      const html = await response.text();
      expect(html).toMatch(/<h1>403 · Opened from another site<\/h1>/);
      expect(html).toContain(`<a href="${back}">`);
      for (const site of ["same-origin", "same-site", "none", undefined]) {
        expect(open(url, site).status, `${url} ${site}`).toBe(200);
      }
    }
  });

  it("leave every other page alone, cross-site or not", () => {
    for (const url of ["/", "/overview", `/cases/${CASE}`, "/queue?stage=polling", "/finance", "/cases/evidence"]) {
      expect(writingPage(new URL(url, "http://x").pathname, ""), url).toBeNull();
      expect(open(url, "cross-site").status, url).toBe(200);
    }
  });

  it("are every page that shows or exports evidence, and each checks for itself too", () => {
    const exporting = pages(path.join(process.cwd(), "app")).filter((file) =>
      /\b(export|preview)(Case|Filter)Evidence\(/.test(readFileSync(file, "utf8")),
    );
    expect(exporting.length).toBe(2);
    for (const file of exporting) {
      const route = `/${path
        .relative(path.join(process.cwd(), "app"), path.dirname(file))
        .split(path.sep)
        .filter((segment) => !/^\(.*\)$/.test(segment))
        .map((segment) => (segment === "[id]" ? CASE : segment))
        .join("/")}`;
      expect(writingPage(route, ""), route).not.toBeNull();
      expect(readFileSync(file, "utf8")).toMatch(
        /await refuseCrossSitePage\(\);\n\s*const user = await requirePageUser/,
      );
    }
  });
});
