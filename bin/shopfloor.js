#!/usr/bin/env node
// The one executable: the API server, the scheduler, the runner, operator commands and the
// command-line client. It runs the TypeScript sources compiled (bin/compiled.js), or, where the
// compiled program cannot be kept, the sources themselves through tsx. There is no build step.
import path from 'node:path'
import { compiledEntry } from './compiled.js'

const root = path.resolve(import.meta.dirname, '..')
const compiled = await compiledEntry(root, 'src/cli/main.ts')
let main
if (compiled) {
  process.setSourceMapsEnabled(true)
  ;({ main } = await import(compiled))
} else {
  const { register } = await import('tsx/esm/api')
  register()
  ;({ main } = await import('../src/cli/main.ts'))
}
await main(process.argv.slice(2))
