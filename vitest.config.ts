import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    // The compiler reads the system headers through a reader the caller installs (src/cc/system_headers.ts).
    setupFiles: ['tests/setup/system-headers.ts'],
    // Differential suites talk to the kernel oracle thousands of times.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
