// What a browser downloads to show the dashboard the first time: the production build's entry
// (index.html's script, its static imports and CSS) plus the dashboard page's chunk and its static
// imports, raw and gzipped. Builds into a temporary folder with Vite's manifest, never web/dist.
// `node scripts/web-first-load.mjs`; docs/web.md records the figure, which should not grow.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-first-load-'))
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js')
const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', out, '--emptyOutDir', '--manifest'], {
  cwd: path.join(root, 'web'),
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production' },
})
if (built.status !== 0) process.exit(built.status ?? 1)

const manifest = JSON.parse(fs.readFileSync(path.join(out, '.vite', 'manifest.json'), 'utf8'))
const files = new Set()
function take(key) {
  const chunk = manifest[key]
  if (!chunk || files.has(chunk.file)) return
  files.add(chunk.file)
  for (const css of chunk.css ?? []) files.add(css)
  for (const imported of chunk.imports ?? []) take(imported)
}
take('index.html')
take('src/pages/DashboardPage.tsx')

let raw = 0
let gzipped = 0
for (const file of files) {
  const bytes = fs.readFileSync(path.join(out, file))
  raw += bytes.length
  gzipped += zlib.gzipSync(bytes, { level: 9 }).length
}
fs.rmSync(out, { recursive: true, force: true })
const kb = (n) => `${(n / 1000).toFixed(1)} KB`
console.log(`dashboard first load: ${kb(raw)} of JavaScript and CSS, ${kb(gzipped)} gzipped, in ${files.size} files`)
