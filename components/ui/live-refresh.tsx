"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Time } from "./time";

/**
 * Re-reads the page's server data every few seconds while the tab is visible (and at once when it
 * becomes visible again), keeping every client component's state: what is typed, selected and
 * where the keyboard cursor is. The same channel a decision's revalidation uses.
 */
export function LiveRefresh({ everyMs = 5_000, label = "Live" }: { everyMs?: number; label?: string }) {
  const router = useRouter();
  const [at, setAt] = useState<Date | null>(null);
  useEffect(() => {
    const refresh = () => {
      if (document.visibilityState !== "visible") return;
      router.refresh();
      setAt(new Date());
    };
    const timer = setInterval(refresh, everyMs);
    document.addEventListener("visibilitychange", refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", refresh);
    };
  }, [router, everyMs]);
  return (
    <span className="text-xs text-slate-700" data-testid="live-refresh">
      <span aria-hidden="true" className="mr-1 inline-block h-2 w-2 rounded-full bg-emerald-600" />
      {label}
      {at ? (
        <>
          {" "}
          · checked <Time at={at} clock />
        </>
      ) : (
        ` · every ${Math.round(everyMs / 1000)} s`
      )}
    </span>
  );
}
