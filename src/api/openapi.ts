import { loadConfig } from '../server/config.ts'
import { openPglite } from '../server/db/pglite.ts'
import { createLogger } from '../server/logger.ts'
import { createContext } from '../server/start.ts'
import { buildApp } from './app.ts'

/**
 * The OpenAPI document of this version, as `GET /openapi.json` answers it with DEBUG=true: the
 * whole app built on an empty in-memory database (no request is served) with a fixed
 * configuration, so that the document depends on the code only. `npm run openapi:dump` writes
 * it to openapi.json; test/contract/openapi-file.test.ts fails when that file is stale.
 */
export async function openApiDocument(): Promise<Record<string, any>> {
  const config = loadConfig({ ENVIRONMENT: 'development', DEBUG: 'true', LOG_LEVEL: 'silent', SCHEDULER: 'off' })
  const db = await openPglite(null)
  const ctx = await createContext(config, createLogger(config), { db, migrations: [] })
  const app = await buildApp(ctx)
  try {
    await app.ready()
    return app.swagger() as Record<string, any>
  } finally {
    await app.close()
    await ctx.bus.close()
    await db.close()
  }
}

/** The text of openapi.json: two-space JSON and a final line break. */
export const openApiText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`
