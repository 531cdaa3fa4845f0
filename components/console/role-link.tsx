import type { ReactNode } from "react";
import { can, type Permission, type Role } from "@/lib/domain/roles";

/**
 * A link to a page that checks `permission`, shown only to roles that hold it; everyone else reads
 * who does that instead (`otherwise`), so no link leads a person to a page that refuses them.
 */
export function RoleLink({
  roles,
  permission,
  href,
  children,
  otherwise,
  className = "text-brand underline",
}: {
  roles: readonly Role[];
  permission: Permission;
  href: string;
  children: ReactNode;
  otherwise: ReactNode;
  className?: string;
}) {
  if (can(roles, permission)) {
    return (
      <a href={href} className={className}>
        {children}
      </a>
    );
  }
  return <>{otherwise}</>;
}
