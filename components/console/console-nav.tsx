import Link from "next/link";
import { can, type Role } from "@/lib/domain/roles";
import { NAV_ITEMS } from "./nav-items";
import { SignOutButton } from "./sign-out-button";

export function ConsoleNav({
  user,
}: {
  user: { name: string; email: string; roles: Role[]; producers: readonly string[] | null };
}) {
  const items = NAV_ITEMS.filter(
    (item) =>
      (item.permission === null || can(user.roles, item.permission)) &&
      (!item.everyProducer || user.producers === null),
  );
  return (
    <header className="border-b border-slate-300 bg-white print:hidden">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" className="font-semibold text-slate-900">
          Video job recovery
        </Link>
        <nav aria-label="Main">
          <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {items.map((item) => (
              <li key={item.href}>
                <Link href={item.href} className="rounded px-1 py-0.5 text-slate-800 hover:text-brand hover:underline">
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          <span data-testid="signed-in-user">
            <span className="font-medium">{user.name}</span> <span className="text-slate-600">({user.email})</span>
          </span>
          <ul className="flex gap-1" aria-label="Roles">
            {user.roles.map((role) => (
              <li key={role} className="rounded bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-800">
                {role}
              </li>
            ))}
          </ul>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}
