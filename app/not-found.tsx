import Link from "next/link";

export default function NotFound() {
  return (
    <main className="mx-auto max-w-lg p-8">
      <h1 className="text-2xl font-semibold">404 · Not found</h1>
      <p className="mt-2 text-slate-700">There is nothing at this address.</p>
      <Link className="mt-4 inline-block text-brand underline" href="/">
        Back to the console
      </Link>
    </main>
  );
}
