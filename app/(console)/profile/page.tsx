import type { Metadata } from "next";
import { cookies } from "next/headers";
import { Suspense } from "react";
import { TokenTable } from "@/components/admin/token-table";
import { CreatePersonalTokenForm } from "@/components/profile/create-personal-token-form";
import { SignOutEverywhereButton } from "@/components/profile/sign-out-everywhere-button";
import { TimeDisplayForm } from "@/components/profile/time-display-form";
import { PERMISSION_WORDS } from "@/components/ui/code-words";
import { LoadingState } from "@/components/ui/loading-state";
import { revokePersonalTokenAction } from "@/lib/actions/profile-actions";
import { requirePageUser, type UserPrincipal } from "@/lib/auth/session";
import { db } from "@/lib/db/client";
import { PERMISSIONS, permissionsOf } from "@/lib/domain/roles";
import { listAccessTokens } from "@/lib/services/access/list-access-tokens";
import { readTimeDisplay, TIME_DISPLAY_COOKIE } from "@/lib/validation/time-display";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Profile" };

export default async function ProfilePage() {
  const user = await requirePageUser();
  // In the table's order (reading, then cases, money, administration), not the codes' alphabet.
  const granted = permissionsOf(user.roles);
  const permissions = PERMISSIONS.filter((permission) => granted.has(permission));
  return (
    <div className="max-w-5xl space-y-8">
      <section aria-labelledby="profile-heading">
        <h1 id="profile-heading" className="text-2xl font-semibold">
          {user.name}
        </h1>
        <dl className="mt-4 grid grid-cols-[8rem_1fr] gap-y-2 text-sm">
          <dt className="font-medium text-slate-700">Email</dt>
          <dd>{user.email}</dd>
          <dt className="font-medium text-slate-700">Roles</dt>
          <dd>{user.roles.join(", ") || "none"}</dd>
          <dt className="font-medium text-slate-700">Producers</dt>
          <dd data-testid="profile-producers">
            {user.producers === null ? "every producer" : `only ${user.producers.join(", ")} (set by an admin)`}
          </dd>
          <dt className="font-medium text-slate-700">May</dt>
          <dd>
            <ul className="list-disc pl-5">
              {permissions.map((permission) => (
                <li key={permission} title={permission}>
                  {PERMISSION_WORDS[permission]}
                </li>
              ))}
            </ul>
          </dd>
        </dl>
      </section>

      <section aria-labelledby="times-heading" className="space-y-3">
        <h2 id="times-heading" className="text-xl font-semibold">
          Times
        </h2>
        <TimeDisplayForm current={readTimeDisplay((await cookies()).get(TIME_DISPLAY_COOKIE)?.value)} />
      </section>

      <section aria-labelledby="sessions-heading" className="space-y-3">
        <div>
          <h2 id="sessions-heading" className="text-xl font-semibold">
            Sessions
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Signing out here ends this browser&apos;s session. To end every session signed in as you (another computer,
            a copied cookie), sign out everywhere. Your personal tokens are not affected; revoke them below.
          </p>
        </div>
        <SignOutEverywhereButton />
      </section>

      <section aria-labelledby="tokens-heading" className="space-y-4">
        <div>
          <h2 id="tokens-heading" className="text-xl font-semibold">
            Personal access tokens
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            For scripts that use the HTTP API as you (<code>Authorization: Bearer vrp_…</code>). A token has your roles
            and producers at the time of each request and stops working when you revoke it, when it expires, or when
            your account is deactivated.
          </p>
        </div>
        <CreatePersonalTokenForm />
        <Suspense fallback={<LoadingState label="Loading your tokens…" />}>
          <PersonalTokens user={user} />
        </Suspense>
      </section>
    </div>
  );
}

async function PersonalTokens({ user }: { user: UserPrincipal }) {
  const tokens = await listAccessTokens(db(), user, "personal");
  return (
    <TokenTable
      tokens={tokens}
      caption="Your personal access tokens"
      nameLabel="Name"
      emptyText="You have no personal access tokens."
      showExpiry
      revokeAction={revokePersonalTokenAction}
    />
  );
}
