import { defineConfig } from 'vitest/config'

// `npm run test:faults`: the fault suite (test/faults/). Real processes are killed and servers
// stopped and started, so its files run one at a time, apart from the normal tests.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    // The same template databases as the normal tests (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
})
