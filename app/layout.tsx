import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

// Every page renders per request, the not-found page and the root redirect included: the
// Content-Security-Policy's nonce is new for each response (proxy.ts), and a page rendered at
// build time would carry none, so the browser would run none of its scripts.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Video job recovery", template: "%s · Video job recovery" },
  description: "Dead-letter queue and recovery console for paid AI video generation jobs",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
