import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    // Migrates one template database for the whole run; test files clone it (test/databases.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two test files at a time, each in its own process (PGlite is memory hungry).
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
})
