import securityHeaders from "./server/security-headers.json" with { type: "json" };

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  // Names the framework (and its version's known holes) to anyone who asks; nothing needs it.
  poweredByHeader: false,
  // Browser-test runs build into their own directory (and their own generated tsconfig, which Next
  // rewrites) so they never replace a running build; types are checked by `npm run typecheck`.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  typescript: {
    ignoreBuildErrors: process.env.SKIP_BUILD_TYPECHECK === "1" || Boolean(process.env.NEXT_TSCONFIG),
    ...(process.env.NEXT_TSCONFIG ? { tsconfigPath: process.env.NEXT_TSCONFIG } : {}),
  },
  experimental: { authInterrupts: true },
  // One prom-client per process, loaded by Node as the HTTP entry loads it, not a second bundled copy.
  serverExternalPackages: ["prom-client"],
  async headers() {
    return [
      {
        source: "/:path*",
        // The HTTP entry's direct routes send the same (server/serve-direct.ts). HSTS depends on
        // AUTH_URL at start (server/request-listener.ts), the page CSP on the request (proxy.ts).
        headers: securityHeaders,
      },
    ];
  },
};

export default nextConfig;
