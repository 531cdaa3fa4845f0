"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

export type AdminNavItem = { href: string; label: string };

export function AdminNav({ items }: { items: AdminNavItem[] }) {
  const pathname = usePathname();
  if (items.length === 0) return null;
  return (
    <nav aria-label="Admin" className="mb-6 border-b border-slate-300">
      <ul className="flex flex-wrap gap-1 text-sm">
        {items.map((item) => {
          const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={current ? "page" : undefined}
                className={`-mb-px inline-block border-b-2 px-3 py-2 ${
                  current
                    ? "border-brand font-semibold text-brand"
                    : "border-transparent text-slate-800 hover:border-slate-400 hover:text-brand"
                }`}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
