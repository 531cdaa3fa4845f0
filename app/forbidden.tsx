import { headers } from "next/headers";
import Link from "next/link";
import { isCrossSite } from "@/lib/auth/cross-site";

export default async function Forbidden() {
  // A page that writes when shown (an evidence export) refuses links from other sites (lib/auth/cross-site.ts).
  const crossSite = isCrossSite((await headers()).get("sec-fetch-site"));
  return (
    <main className="mx-auto max-w-lg p-8">
      <h1 className="text-2xl font-semibold">403 · Not allowed</h1>
      <p className="mt-2 text-slate-700">
        {crossSite
          ? "Your roles do not include access to this page, or it was opened from another site: pages that record an export (an evidence packet) are shown only when opened from the console itself."
          : "Your roles do not include access to this page."}
      </p>
      <Link className="mt-4 inline-block text-brand underline" href="/">
        Back to the console
      </Link>
    </main>
  );
}
