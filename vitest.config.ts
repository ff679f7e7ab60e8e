import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    // Differential suites talk to the kernel oracle thousands of times.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
