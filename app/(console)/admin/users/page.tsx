import type { Metadata } from "next";
import { Suspense } from "react";
import { CreateUserForm } from "@/components/admin/create-user-form";
import { OwnershipForm } from "@/components/admin/ownership-form";
import { UserAccountControls, UserProducersEditor, UserRolesEditor } from "@/components/admin/user-controls";
import { LoadingState } from "@/components/ui/loading-state";
import { Cell, Row, Table, TableHead } from "@/components/ui/table";
import { Time } from "@/components/ui/time";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { consoleSettings } from "@/lib/services/admin/console-settings";
import { listKnownProducers } from "@/lib/services/admin/known-producers";
import { listUsers } from "@/lib/services/admin/list-users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const actor = await requirePageUser("admin:users");
  const settings = await consoleSettings(db());
  return (
    <section aria-labelledby="users-heading" className="space-y-6">
      <div>
        <h1 id="users-heading" className="text-2xl font-semibold">
          Users
        </h1>
        <p className="mt-1 text-sm text-slate-700">
          Accounts, their roles and the producers they work for (an agency&apos;s people can be limited to its shops).
          Changes take effect on the user&apos;s next request. From the server&apos;s command line:{" "}
          <code>npm run user:create -- --email … --role …</code>
        </p>
      </div>
      <OwnershipForm ownership={settings.assignmentIsOwnership} />
      <CreateUserForm />
      <Suspense fallback={<LoadingState label="Loading users…" />}>
        <UsersTable actor={actor} />
      </Suspense>
    </section>
  );
}

async function UsersTable({ actor }: { actor: UserPrincipal }) {
  const [users, known] = await Promise.all([listUsers(db(), actor), listKnownProducers(db(), actor)]);
  return users.length === 0 ? (
    <p className="text-sm text-slate-700">No users yet.</p>
  ) : (
    <Table caption="All users, their roles and status">
      <TableHead
        columns={[
          { label: "Email", sort: "ascending" },
          "Name",
          "Roles",
          "Producers",
          "Status",
          "Last sign-in",
          "Account",
        ]}
      />
      <tbody>
        {users.map((user) => {
          const isSelf = user.id === actor.userId;
          return (
            <Row key={user.id}>
              <Cell>{user.email}</Cell>
              <Cell>
                {user.name}
                {isSelf ? <span className="ml-1 text-xs text-slate-600">(you)</span> : null}
              </Cell>
              <Cell>
                <UserRolesEditor key={user.roles.join()} user={user} isSelf={isSelf} />
              </Cell>
              <Cell>
                <UserProducersEditor key={user.roles.join()} user={user} known={known} />
              </Cell>
              <Cell>{user.active ? "active" : "deactivated"}</Cell>
              <Cell>
                <Time at={user.lastSignInAt} fallback="never" />
              </Cell>
              <Cell>
                <UserAccountControls user={user} isSelf={isSelf} />
              </Cell>
            </Row>
          );
        })}
      </tbody>
    </Table>
  );
}
