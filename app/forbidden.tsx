import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-lg p-8">
      <h1 className="text-2xl font-semibold">403 · Not allowed</h1>
      <p className="mt-2 text-slate-700">Your roles do not include access to this page.</p>
      <Link className="mt-4 inline-block text-brand underline" href="/">
        Back to the console
      </Link>
    </main>
  );
}
