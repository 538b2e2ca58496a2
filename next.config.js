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
  // Lets parallel builds (several engineers, or CI steps) keep apart.
  distDir: process.env.NEXT_DIST_DIR || '.next',
};

export default nextConfig;
