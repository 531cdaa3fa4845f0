import type { Permission } from "@/lib/domain/roles";

/** Only pages that exist are listed; each is shown to the roles that may open it. */
export const NAV_ITEMS: { href: string; label: string; permission: Permission | null }[] = [
  { href: "/overview", label: "Overview", permission: "case:read" },
  { href: "/queue", label: "Queue", permission: "case:read" },
  { href: "/alerts", label: "Alerts", permission: "case:read" },
  { href: "/finance", label: "Finance", permission: "hold:read" },
  { href: "/admin/users", label: "Admin", permission: "admin:users" },
  { href: "/profile", label: "Profile", permission: null },
];
