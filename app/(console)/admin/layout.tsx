import type { ReactNode } from "react";
import { AdminNav } from "@/components/admin/admin-nav";
import { ADMIN_SECTIONS } from "@/components/admin/admin-sections";
import { requirePageUser } from "@/lib/auth/session";
import { can } from "@/lib/domain/roles";

// Navigation only: each admin page checks its own permission on the server.
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  const items = ADMIN_SECTIONS.filter((section) => can(user.roles, section.permission)).map(({ href, label }) => ({
    href,
    label,
  }));
  return (
    <>
      <AdminNav items={items} />
      {children}
    </>
  );
}
