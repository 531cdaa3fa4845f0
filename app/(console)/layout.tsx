import type { ReactNode } from "react";
import { ConsoleNav } from "@/components/console/console-nav";
import { DemoBanner } from "@/components/console/demo-banner";
import { QueryProvider } from "@/components/providers/query-provider";
import { requirePageUser } from "@/lib/auth/session";
import { env } from "@/lib/env";

export const dynamic = "force-dynamic";

// The layout checks the session for navigation only; every page checks it again for itself.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  return (
    <>
      {env().demo && <DemoBanner />}
      <ConsoleNav user={user} />
      <main className="mx-auto max-w-7xl px-4 py-6">
        <QueryProvider>{children}</QueryProvider>
      </main>
    </>
  );
}
