#!/usr/bin/env node
// The one executable: the API server, the scheduler, the runner, operator commands and the
// command-line client. TypeScript sources are loaded through tsx, so there is no build step.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src/cli/main.ts')
await main(process.argv.slice(2))
