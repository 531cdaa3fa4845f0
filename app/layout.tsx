import type { Metadata, Viewport } from "next";
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

// Tells the browser before any stylesheet arrives that the page has a dark scheme, so a dark
// system does not see a white flash while the page loads (the colours are in globals.css).
export const viewport: Viewport = { colorScheme: "light dark" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
