import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { DemoBanner } from "@/components/console/demo-banner";
import { currentUser } from "@/lib/auth/session";
import { ROLES } from "@/lib/domain/roles";
import { env } from "@/lib/env";
import { DEMO_PASSWORD, demoEmail } from "@/lib/services/admin/seed-demo-users";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage() {
  if (await currentUser()) redirect("/");
  const config = env();
  return (
    <>
      {config.demo && <DemoBanner />}
      <main className="mx-auto mt-16 max-w-sm px-4">
        <h1 className="text-2xl font-semibold">Sign in</h1>
        <p className="mt-1 text-sm text-slate-700">Video job recovery console</p>
        <SignInForm oidcName={config.oidcEnabled ? config.OIDC_NAME : null} />
        {config.demo && (
          <section
            aria-labelledby="demo-accounts"
            className="mt-8 rounded border border-amber-300 bg-amber-50 p-4 text-sm"
          >
            <h2 id="demo-accounts" className="font-semibold">
              Demo accounts
            </h2>
            <p className="mt-1">
              Password for each: <code className="font-mono">{DEMO_PASSWORD}</code>
            </p>
            <ul className="mt-2 list-disc pl-5">
              {ROLES.map((role) => (
                <li key={role}>
                  <code className="font-mono">{demoEmail(role)}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
      </main>
    </>
  );
}
