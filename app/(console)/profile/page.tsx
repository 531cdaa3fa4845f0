import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/session";
import { permissionsOf } from "@/lib/domain/roles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Profile" };

export default async function ProfilePage() {
  const user = await requirePageUser();
  const permissions = [...permissionsOf(user.roles)].sort();
  return (
    <section aria-labelledby="profile-heading" className="max-w-2xl">
      <h1 id="profile-heading" className="text-2xl font-semibold">
        {user.name}
      </h1>
      <dl className="mt-4 grid grid-cols-[8rem_1fr] gap-y-2 text-sm">
        <dt className="font-medium text-slate-700">Email</dt>
        <dd>{user.email}</dd>
        <dt className="font-medium text-slate-700">Roles</dt>
        <dd>{user.roles.join(", ") || "none"}</dd>
        <dt className="font-medium text-slate-700">May</dt>
        <dd>
          <ul className="list-disc pl-5">
            {permissions.map((permission) => (
              <li key={permission}>
                <code>{permission}</code>
              </li>
            ))}
          </ul>
        </dd>
      </dl>
    </section>
  );
}
