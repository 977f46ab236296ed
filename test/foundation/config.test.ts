import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/server/config.ts'

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      databaseUrl: null,
      dataDir: './data',
      environment: 'development',
      production: false,
      debug: false,
      runLeaseSeconds: 300,
      eventsBackend: 'memory',
      redisUrl: 'redis://localhost:6379/0',
      rateLimitHeaders: false,
      scheduler: true,
      webAppUrl: 'http://127.0.0.1:8000',
    })
    expect(c.smtp).toMatchObject({ port: 587, secure: false, host: null })
  })

  it('goes without JWT_SECRET_KEY only in development-like environments, and then never with a constant', () => {
    for (const env of [{}, { ENVIRONMENT: 'dev' }, { ENVIRONMENT: ' Local ' }, { APP_ENV: 'test', ENVIRONMENT: 'production' }]) {
      const config = loadConfig(env)
      expect(config.jwtSecretKept).toBe(true)
      expect(config.jwtSecret).not.toBe(loadConfig(env).jwtSecret)
      expect(config.jwtSecret).not.toBe('shopfloor-development-secret-do-not-use-in-production')
    }
    expect(loadConfig({ JWT_SECRET_KEY: 'given' })).toMatchObject({ jwtSecret: 'given', jwtSecretKept: false })
    expect(() => loadConfig({ ENVIRONMENT: 'production' })).toThrow(ConfigError)
    expect(() => loadConfig({ ENVIRONMENT: 'staging' })).toThrow(/JWT_SECRET_KEY/)
    expect(() => loadConfig({ APP_ENV: 'prod', ENVIRONMENT: 'development' })).toThrow(/JWT_SECRET_KEY/)
    expect(loadConfig({ ENVIRONMENT: 'production', JWT_SECRET_KEY: 's3cret' }).jwtSecret).toBe('s3cret')
  })

  it('hashes passwords at bcrypt cost 12, and at its minimum only when ENVIRONMENT is test', () => {
    expect(loadConfig({}).passwordCost).toBe(12)
    expect(loadConfig({ ENVIRONMENT: 'development' }).passwordCost).toBe(12)
    expect(loadConfig({ ENVIRONMENT: 'production', JWT_SECRET_KEY: 'a-real-secret' }).passwordCost).toBe(12)
    expect(loadConfig({ ENVIRONMENT: 'testing', JWT_SECRET_KEY: 'a-real-secret' }).passwordCost).toBe(12)
    expect(loadConfig({ ENVIRONMENT: 'test' }).passwordCost).toBe(4)
    expect(loadConfig({ ENVIRONMENT: ' Test ' }).passwordCost).toBe(4)
  })

  it('treats only exactly "production" as production', () => {
    expect(loadConfig({ ENVIRONMENT: 'production', JWT_SECRET_KEY: 'x' }).production).toBe(true)
    expect(loadConfig({ ENVIRONMENT: 'Production', JWT_SECRET_KEY: 'x' }).production).toBe(false)
  })

  it('derives WEB_APP_URL from the first http(s) origin', () => {
    expect(loadConfig({ ALLOWED_ORIGINS: 'capacitor://x, https://app.example/ ,http://b' }).webAppUrl).toBe('https://app.example')
    expect(loadConfig({ WEB_APP_URL: 'https://web.example/' }).webAppUrl).toBe('https://web.example')
  })

  it('reads the event backend, lease and flags', () => {
    expect(loadConfig({ EVENTS_BACKEND: 'redis' }).eventsBackend).toBe('redis')
    expect(loadConfig({ EVENTS_BACKEND: 'kafka' }).eventsBackend).toBe('memory')
    expect(loadConfig({ RUN_LEASE_SECONDS: '30' }).runLeaseSeconds).toBe(30)
    expect(loadConfig({ DEBUG: 'true', RATELIMIT_HEADERS_ENABLED: 'true', SCHEDULER: 'off' })).toMatchObject({ debug: true, rateLimitHeaders: true, scheduler: false })
  })

  it('rejects malformed values with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/)
    expect(() => loadConfig({ RUN_LEASE_SECONDS: '0' })).toThrow(/RUN_LEASE_SECONDS/)
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/)
  })
})
