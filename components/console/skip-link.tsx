"use client";

import { usePathname } from "next/navigation";

const CASE_PAGE = /^\/cases\/[^/]+\/?$/;

/**
 * The first stop of the Tab key on every console page: past the navigation to the page's content,
 * and on a case page straight to its decision (the element with id "decision").
 */
export function SkipLink() {
  const onCase = CASE_PAGE.test(usePathname() ?? "");
  const target = onCase ? "decision" : "main";
  return (
    <a
      href={`#${target}`}
      className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-brand focus:shadow"
      onClick={(event) => {
        const element = document.getElementById(target);
        if (!element) return;
        event.preventDefault();
        element.focus();
        element.scrollIntoView({ block: "start" });
      }}
    >
      {onCase ? "Skip to decision" : "Skip to main content"}
    </a>
  );
}
