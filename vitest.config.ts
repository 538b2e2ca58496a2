import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const shared = {
  environment: 'node' as const,
  alias: {
    '@/': root,
    // The workspace packages, from source (as tsconfig's paths map them).
    '@checkpoint/agent-hooks': `${root}lib/hooks/index.ts`,
    '@checkpoint/client': `${root}lib/client/index.ts`,
    // Server modules start with `import "server-only"`, which throws outside
    // a React Server Component bundle; in tests it is an empty module.
    'server-only': `${root}node_modules/server-only/empty.js`,
  },
};

export default defineConfig({
  resolve: { alias: shared.alias },
  test: {
    projects: [
      {
        resolve: { alias: shared.alias },
        test: {
          ...shared,
          name: 'unit',
          include: ['tests/unit/**/*.test.ts', 'lib/**/*.test.ts', 'conformance/**/*.test.ts'],
          testTimeout: 30_000,
          // An in-memory PGlite initdb takes ~5 s on an idle machine, several times that under load.
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias: shared.alias },
        test: {
          ...shared,
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One database per run; files share it, so run them one at a time.
          fileParallelism: false,
          globalSetup: ['tests/integration/global-setup.ts'],
          setupFiles: ['tests/integration/helpers/file-setup.ts'],
        },
      },
    ],
  },
});
