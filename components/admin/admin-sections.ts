import type { Permission } from "@/lib/domain/roles";

/** The admin area's pages and the permission each one checks on the server. */
export const ADMIN_SECTIONS: { href: string; label: string; permission: Permission }[] = [
  { href: "/admin/users", label: "Users", permission: "admin:users" },
  { href: "/admin/api-keys", label: "API keys", permission: "admin:api_keys" },
  { href: "/admin/worker-tokens", label: "Worker tokens", permission: "admin:worker_tokens" },
  { href: "/admin/prices", label: "Prices", permission: "admin:settings" },
  { href: "/admin/providers", label: "Providers", permission: "admin:settings" },
  { href: "/admin/alerts", label: "Alerts", permission: "admin:settings" },
  { href: "/admin/retention", label: "Retention", permission: "admin:settings" },
];
