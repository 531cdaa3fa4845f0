import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { listUsers } from "@/lib/services/list-users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const actor = await requirePageUser("admin:users");
  const users = await listUsers(db(), actor);
  return (
    <section aria-labelledby="users-heading">
      <h1 id="users-heading" className="text-2xl font-semibold">
        Users
      </h1>
      <p className="mt-1 text-sm text-slate-700">
        Create or update accounts from the command line: <code>npm run user:create -- --email … --role …</code>
      </p>
      <table className="mt-4 w-full border-collapse bg-white text-left text-sm">
        <caption className="sr-only">All users and their roles</caption>
        <thead>
          <tr className="border-b border-slate-300">
            <th scope="col" className="px-3 py-2">
              Email
            </th>
            <th scope="col" className="px-3 py-2">
              Name
            </th>
            <th scope="col" className="px-3 py-2">
              Roles
            </th>
            <th scope="col" className="px-3 py-2">
              Status
            </th>
            <th scope="col" className="px-3 py-2">
              Last sign-in
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} className="border-b border-slate-200">
              <td className="px-3 py-2">{user.email}</td>
              <td className="px-3 py-2">{user.name}</td>
              <td className="px-3 py-2">{user.roles.join(", ") || "none"}</td>
              <td className="px-3 py-2">{user.active ? "active" : "deactivated"}</td>
              <td className="px-3 py-2">
                {user.lastSignInAt?.toISOString().replace("T", " ").slice(0, 16) ?? "never"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
