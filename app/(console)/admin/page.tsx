import { forbidden, redirect } from "next/navigation";
import { ADMIN_SECTIONS } from "@/components/admin/admin-sections";
import { requirePageUser } from "@/lib/auth/session";
import { can } from "@/lib/domain/roles";

export const dynamic = "force-dynamic";

/** /admin opens the first admin page this user may see; with none, the 403 page. */
export default async function AdminIndexPage() {
  const user = await requirePageUser();
  const first = ADMIN_SECTIONS.find((section) => can(user.roles, section.permission));
  if (!first) forbidden();
  redirect(first.href);
}
