import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    // The fault suite has its own command (npm run test:faults, vitest.faults.config.ts).
    exclude: ['test/faults/**', '**/node_modules/**'],
    // Migrates one template database for the whole run; test files clone it (test/databases.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    // expect.poll waits up to 10 s for what a server, a runner or a browser does in the
    // background (1 s by default): three test files share two cores, and a refetch in a browser
    // page behind a busy server took longer than a second.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    // Three test files at a time on two cores, each worker its own process: many tests wait on
    // other processes (servers starting, runners, agents, a browser), and a third worker fills
    // those waits (with two, the cores stood idle about a tenth of the run).
    pool: 'forks',
    maxWorkers: 3,
    fileParallelism: true,
    // A worker runs its test files one after another on the modules it has loaded, instead of
    // loading the whole server again for each file (about 1.6 s of every file's time). Tests
    // share no state through modules: each makes its own users, companies and databases.
    isolate: false,
  },
})
