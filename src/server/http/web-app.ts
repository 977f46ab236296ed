import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { PageFallback } from './not-found.ts'

const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist')
const API_PATHS = /^\/(api|health|docs|openapi\.json)(\/|$)/

/** True when the client (a browser) prefers HTML over JSON. */
export function prefersHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  const html = accept.indexOf('text/html')
  const json = accept.indexOf('application/json')
  return html !== -1 && (json === -1 || html < json)
}

/**
 * Serves the built web app (web/dist, or the folder WEB_DIST_DIR names) when it exists: its files as static assets, and its
 * index.html for any other browser page outside the API (so /reset-password?token=... works).
 * Returns the fallback used for pages that match no route.
 */
export async function webApp(app: FastifyInstance, dist = WEB_DIST): Promise<PageFallback | undefined> {
  if (!fs.existsSync(path.join(dist, 'index.html'))) return undefined
  await app.register(fastifyStatic, { root: dist, wildcard: false, serve: true, index: false, prefix: '/assets-root/' })
  const files = new Set(listFiles(dist))
  return (request, reply) => {
    const pathname = decodeURIComponent(request.url.split('?')[0])
    if (API_PATHS.test(pathname)) return false
    const file = pathname.replace(/^\/+/, '')
    if (files.has(file) && file !== 'index.html') {
      // The build names every file under assets/ by a hash of its content, so a browser may keep
      // it for good: a page load then asks the server only for index.html, not once per chunk.
      reply.sendFile(file, file.startsWith('assets/') ? { maxAge: '365d', immutable: true } : {})
      return true
    }
    if (!prefersHtml(request)) return false
    // Asked again on every load (no-cache), so a new build's chunks are what the next load gets.
    reply.header('Cache-Control', 'no-cache').sendFile('index.html', { cacheControl: false })
    return true
  }
}

function listFiles(dir: string, base = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const rel = base ? `${base}/${entry.name}` : entry.name
    return entry.isDirectory() ? listFiles(path.join(dir, entry.name), rel) : [rel]
  })
}
