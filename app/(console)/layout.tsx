import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { ConsoleNav } from "@/components/console/console-nav";
import { DemoBanner } from "@/components/console/demo-banner";
import { SkipLink } from "@/components/console/skip-link";
import { QueryProvider } from "@/components/providers/query-provider";
import { TimeDisplayProvider } from "@/components/ui/time-display";
import { requirePageUser } from "@/lib/auth/session";
import { env } from "@/lib/env";
import { readTimeDisplay, TIME_DISPLAY_COOKIE } from "@/lib/validation/time-display";

export const dynamic = "force-dynamic";

// The layout checks the session for navigation only; every page checks it again for itself.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  const display = readTimeDisplay((await cookies()).get(TIME_DISPLAY_COOKIE)?.value);
  return (
    <TimeDisplayProvider display={display}>
      <SkipLink />
      {env().demo && <DemoBanner />}
      <ConsoleNav user={user} />
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-4 outline-none md:py-6">
        <QueryProvider>{children}</QueryProvider>
      </main>
    </TimeDisplayProvider>
  );
}
