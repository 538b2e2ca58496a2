/**
 * Static files never reach proxy.ts (see its matcher), so they get the
 * security headers here; pages and API answers get theirs, with the page's
 * nonce, from proxy.ts (lib/server/http/security-headers.ts). Only paths the
 * proxy skips are listed: a second Content-Security-Policy header would be
 * enforced on top of the proxy's.
 */
const STATIC_HEADERS = [
  { key: 'Content-Security-Policy', value: "default-src 'none'; frame-ancestors 'none'" },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM from its own package directory; BullMQ, pino, pg
  // and prom-client are Node-only. Keep them out of the server bundle (a webpack build
  // breaks PGlite otherwise; harmless under Turbopack).
  serverExternalPackages: [
    '@electric-sql/pglite',
    'pglite-prisma-adapter',
    'bullmq',
    'ioredis',
    'pino',
    'pg',
    'prom-client',
  ],
  poweredByHeader: false,
  async headers() {
    return ['/_next/static/:path*', '/favicon.ico', '/favicon.svg', '/robots.txt'].map(
      (source) => ({ source, headers: STATIC_HEADERS }),
    );
  },
  // Lets parallel builds (several engineers, or CI steps) keep apart.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
