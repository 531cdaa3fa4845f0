import type { Permission } from "@/lib/domain/roles";

/** Only pages that exist are listed; each is shown to the roles that may open it. */
/** `everyProducer`: deployment-wide, so not for a person limited to some producers (decision 035). */
export const NAV_ITEMS: { href: string; label: string; permission: Permission | null; everyProducer?: true }[] = [
  { href: "/overview", label: "Overview", permission: "case:read" },
  { href: "/queue", label: "Queue", permission: "case:read" },
  { href: "/history", label: "History", permission: "case:read" },
  { href: "/alerts", label: "Alerts", permission: "case:read", everyProducer: true },
  { href: "/pauses", label: "Pauses", permission: "case:read" },
  { href: "/bulk-jobs", label: "Bulk jobs", permission: "case:read" },
  { href: "/workers", label: "Workers", permission: "case:read", everyProducer: true },
  { href: "/finance", label: "Finance", permission: "hold:read" },
  { href: "/activity", label: "Activity", permission: "admin:settings", everyProducer: true },
  { href: "/admin/users", label: "Admin", permission: "admin:users" },
  { href: "/profile", label: "Profile", permission: null },
];
