// Builds the web app (web/ -> web/dist, or into the folder WEB_DIST_DIR names, which the server
// then serves) with Vite. With --if-stale it does nothing when the build is newer than every
// source file, so `npm start` stays quick after the first time. Always the production build,
// whatever NODE_ENV the caller runs with (a test runner sets `test`, which made Vite produce a
// development build).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const web = path.join(root, 'web')
const outDir = process.env.WEB_DIST_DIR ? path.resolve(process.env.WEB_DIST_DIR) : path.join(web, 'dist')
const built = path.join(outDir, 'index.html')

if (!fs.existsSync(path.join(web, 'index.html'))) process.exit(0) // no web app in this tree

function newest(dir) {
  let latest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue
    const full = path.join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs)
  }
  return latest
}

if (process.argv.includes('--if-stale') && fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(web)) process.exit(0)

const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js')
const result = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', outDir, '--emptyOutDir'], {
  cwd: web,
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production' },
})
process.exit(result.status ?? 1)
