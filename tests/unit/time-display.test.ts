import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { formatClock, formatWhen } from "@/components/ui/format";
import { Time } from "@/components/ui/time";
import { TimeDisplayProvider } from "@/components/ui/time-display";
import { readTimeDisplay, timeDisplaySchema } from "@/lib/validation/time-display";

// Decision 062: one component writes every time a person reads, in their zone or UTC as they chose,
// the zone always named and UTC on hover.
describe("formatWhen in a zone", () => {
  it("writes the moment in the zone given, naming it", () => {
    const at = new Date("2026-12-02T11:44:00Z");
    expect(formatWhen(at, "—", "America/New_York")).toBe("2 Dec 2026, 06:44 GMT-5");
    expect(formatWhen(at, "—", "Asia/Tokyo")).toBe("2 Dec 2026, 20:44 GMT+9");
    expect(formatWhen(at)).toBe("2 Dec 2026, 11:44 UTC");
  });

  it("writes a time of day to the second, named, for what happened moments ago", () => {
    expect(formatClock(new Date("2026-12-02T11:44:05Z"))).toBe("11:44:05 UTC");
    expect(formatClock(new Date("2026-12-02T11:44:05Z"), "America/New_York")).toBe("06:44:05 GMT-5");
  });

  it("falls back to UTC for a zone it does not know, rather than failing", () => {
    expect(formatWhen("2026-12-02T11:44:00Z", "—", "Mars/Olympus")).toBe("2 Dec 2026, 11:44 UTC");
  });
});

describe("<Time>", () => {
  const render = (display: "local" | "utc", at: string | null, fallback?: string) =>
    renderToStaticMarkup(
      createElement(
        TimeDisplayProvider,
        { display } as Parameters<typeof TimeDisplayProvider>[0],
        createElement(Time, { at, ...(fallback ? { fallback } : {}) }),
      ),
    );

  it("is a <time> with the instant in datetime and UTC on hover; the server writes UTC until the browser knows its zone", () => {
    for (const display of ["local", "utc"] as const) {
      const html = render(display, "2026-12-02T11:44:05.000Z");
      expect(html).toContain('dateTime="2026-12-02T11:44:05.000Z"');
      expect(html).toContain('title="2 Dec 2026, 11:44 UTC (2026-12-02T11:44:05.000Z)"');
      expect(html).toContain(">2 Dec 2026, 11:44 UTC</time>");
    }
  });

  it("says what stands in for a moment that has not happened", () => {
    expect(render("local", null, "never")).toBe("<span>never</span>");
  });
});

describe("the time display setting", () => {
  it("accepts local or UTC only", () => {
    expect(timeDisplaySchema.safeParse({ times: "utc" }).success).toBe(true);
    expect(timeDisplaySchema.safeParse({ times: "Europe/Paris" }).success).toBe(false);
    expect(timeDisplaySchema.safeParse({ times: "local", extra: 1 }).success).toBe(false);
  });

  it("reads a missing or edited cookie as local time", () => {
    expect(readTimeDisplay(undefined)).toBe("local");
    expect(readTimeDisplay("utc")).toBe("utc");
    expect(readTimeDisplay("<script>")).toBe("local");
  });
});
