"use client";

import { usePathname } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";

/**
 * On a phone the console's navigation and who is signed in fold behind one Menu button, so the
 * header is one line and the page's own content starts at the top; from md up they show as a row.
 */
export function ConsoleMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  // A followed link closes the menu: the next page starts with its content, not the menu.
  useEffect(() => {
    void pathname;
    setOpen(false);
  }, [pathname]);
  return (
    <>
      <button
        type="button"
        className="ml-auto rounded border border-slate-400 px-3 py-1.5 text-sm font-medium text-slate-900 md:hidden"
        aria-expanded={open}
        aria-controls="console-menu"
        onClick={() => setOpen((was) => !was)}
      >
        Menu
      </button>
      <div
        id="console-menu"
        className={`${open ? "flex" : "hidden"} w-full flex-col gap-3 pb-2 md:flex md:w-auto md:flex-1 md:flex-row md:flex-wrap md:items-center md:gap-x-6 md:pb-0`}
      >
        {children}
      </div>
    </>
  );
}
