import type { Metadata } from "next";
import { Suspense } from "react";
import { CreateUserForm } from "@/components/admin/create-user-form";
import { formatWhen } from "@/components/admin/format";
import { LoadingState } from "@/components/admin/loading-state";
import { UserAccountControls, UserRolesEditor } from "@/components/admin/user-controls";
import { TableHead } from "@/components/ui/table-head";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listUsers } from "@/lib/services/admin/list-users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const actor = await requirePageUser("admin:users");
  return (
    <section aria-labelledby="users-heading" className="space-y-6">
      <div>
        <h1 id="users-heading" className="text-2xl font-semibold">
          Users
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Accounts and their roles. Changes take effect on the user&apos;s next request. From the server&apos;s command
          line: <code>npm run user:create -- --email … --role …</code>
        </p>
      </div>
      <CreateUserForm />
      <Suspense fallback={<LoadingState label="Loading users…" />}>
        <UsersTable actor={actor} />
      </Suspense>
    </section>
  );
}

async function UsersTable({ actor }: { actor: UserPrincipal }) {
  const users = await listUsers(db(), actor);
  return users.length === 0 ? (
    <p className="text-sm text-slate-700">No users yet.</p>
  ) : (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse bg-white text-left text-sm">
        <caption className="sr-only">All users, their roles and status</caption>
        <TableHead columns={["Email", "Name", "Roles", "Status", "Last sign-in", "Account"]} />
        <tbody>
          {users.map((user) => {
            const isSelf = user.id === actor.userId;
            return (
              <tr key={user.id} className="border-b border-slate-200 align-top">
                <td className="px-3 py-2">{user.email}</td>
                <td className="px-3 py-2">
                  {user.name}
                  {isSelf ? <span className="ml-1 text-xs text-slate-600">(you)</span> : null}
                </td>
                <td className="px-3 py-2">
                  <UserRolesEditor key={user.roles.join()} user={user} isSelf={isSelf} />
                </td>
                <td className="px-3 py-2">{user.active ? "active" : "deactivated"}</td>
                <td className="px-3 py-2">{formatWhen(user.lastSignInAt)}</td>
                <td className="px-3 py-2">
                  <UserAccountControls user={user} isSelf={isSelf} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
