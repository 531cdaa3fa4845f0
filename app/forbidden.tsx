import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-lg p-8">
      <h1 className="text-2xl font-semibold">403 · Not allowed</h1>
      <p className="mt-2 text-slate-700">Your roles do not include access to this page.</p>
      {/* The evidence pages refuse links from other sites (lib/auth/refuse-cross-site-page.ts). */}
      <p className="mt-2 text-slate-700">
        Followed a link from another site to an evidence packet? Packets are shown only when opened from the console
        itself.
      </p>
      <Link className="mt-4 inline-block text-brand underline" href="/">
        Back to the console
      </Link>
    </main>
  );
}
