import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mergePreferences } from '../../src/domain/accounts/preferences.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const patch = (user: TestUser, body: unknown) => call(t.app, 'PATCH', '/api/me/preferences', { token: user.token, body })

const EVERY_FIELD = {
  accent: 'royal',
  avatar_color: 'ink',
  currency: 'EUR',
  dashboard: { hidden: ['costs'], order: ['agents', 'tasks-open'], range_days: 30 },
  date_style: 'long',
  density: 'compact',
  favorites: { agents: ['5f8a2b6e-0000-4000-8000-000000000001'], projects: ['5f8a2b6e-0000-4000-8000-000000000002'] },
  locale: 'en-GB',
  sidebar_collapsed: true,
  tasks: { saved_views: [{ id: 'mine_1', name: 'Mine', query: 'created_by=me' }], view: 'board' },
  theme: 'dark',
  timezone: 'Europe/London',
  version: 1,
}

describe('PATCH /api/me/preferences', () => {
  it('accepts every field and answers 200 with the whole document, also shown on /api/me', async () => {
    const user = await createUser(t.ctx)
    const r = await patch(user, EVERY_FIELD)
    expect(r.status).toBe(200)
    expect(r.body).toEqual(EVERY_FIELD)
    expect((await call(t.app, 'GET', '/api/me', { token: user.token })).body.preferences).toEqual(EVERY_FIELD)
  })

  it('merges objects key by key, replaces lists and removes settings set to null', async () => {
    const user = await createUser(t.ctx)
    await patch(user, EVERY_FIELD)
    const r = await patch(user, {
      theme: 'light',
      dashboard: { hidden: ['agents'], range_days: null },
      favorites: null,
      sidebar_collapsed: null,
    })
    expect(r.status).toBe(200)
    const { favorites: _f, sidebar_collapsed: _s, ...rest } = EVERY_FIELD
    expect(r.body).toEqual({ ...rest, theme: 'light', dashboard: { hidden: ['agents'], order: ['agents', 'tasks-open'] } })
    expect(r.body).not.toHaveProperty('favorites')
    expect(r.body.dashboard).not.toHaveProperty('range_days')
  })

  it('a group whose last setting is removed disappears', async () => {
    const user = await createUser(t.ctx)
    await patch(user, { tasks: { view: 'list' }, theme: 'system' })
    expect((await patch(user, { tasks: { view: null } })).body).toEqual({ theme: 'system' })
  })

  it('rejects unknown fields at the top and inside groups', async () => {
    const user = await createUser(t.ctx)
    for (const [body, loc] of [
      [{ colour: 'red' }, ['body', 'colour']],
      [{ dashboard: { widgets: [] } }, ['body', 'dashboard', 'widgets']],
      [{ tasks: { saved_views: [{ id: 'a', name: 'A', sort: 'x' }] } }, ['body', 'tasks', 'saved_views', 0, 'sort']],
    ] as const) {
      const r = await patch(user, body)
      expect(r.status).toBe(422)
      expect(r.body.error.details.errors[0]).toMatchObject({ loc, type: 'extra_forbidden' })
    }
    expect((await call(t.app, 'GET', '/api/me', { token: user.token })).body.preferences).toEqual({})
  })

  it('enforces every bound; 422 entries carry type, loc, msg, input and message', async () => {
    const user = await createUser(t.ctx)
    const uuid = '5f8a2b6e-0000-4000-8000-000000000001'
    const invalid: [Record<string, unknown>, (string | number)[]][] = [
      [{ accent: 'red' }, ['body', 'accent']],
      [{ avatar_color: 'green' }, ['body', 'avatar_color']],
      [{ currency: 'eur' }, ['body', 'currency']],
      [{ currency: 'EURO' }, ['body', 'currency']],
      [{ dashboard: { hidden: Array.from({ length: 21 }, (_, i) => `c${i}`) } }, ['body', 'dashboard', 'hidden']],
      [{ dashboard: { order: ['Bad_Card'] } }, ['body', 'dashboard', 'order', 0]],
      [{ dashboard: { order: ['x'.repeat(41)] } }, ['body', 'dashboard', 'order', 0]],
      [{ dashboard: { range_days: 10 } }, ['body', 'dashboard', 'range_days']],
      [{ date_style: 'full' }, ['body', 'date_style']],
      [{ density: 'cozy' }, ['body', 'density']],
      [{ favorites: { agents: Array.from({ length: 51 }, () => uuid) } }, ['body', 'favorites', 'agents']],
      [{ favorites: { projects: ['not-a-uuid'] } }, ['body', 'favorites', 'projects', 0]],
      [{ locale: 'english' }, ['body', 'locale']],
      [{ locale: `en-${'abcdefgh-'.repeat(4)}ab` }, ['body', 'locale']],
      [{ sidebar_collapsed: 'yes' }, ['body', 'sidebar_collapsed']],
      [{ tasks: { saved_views: Array.from({ length: 21 }, (_, i) => ({ id: `v${i}`, name: 'n' })) } }, ['body', 'tasks', 'saved_views']],
      [{ tasks: { saved_views: [{ id: 'has space', name: 'n' }] } }, ['body', 'tasks', 'saved_views', 0, 'id']],
      [{ tasks: { saved_views: [{ id: 'i'.repeat(41), name: 'n' }] } }, ['body', 'tasks', 'saved_views', 0, 'id']],
      [{ tasks: { saved_views: [{ id: 'a', name: '' }] } }, ['body', 'tasks', 'saved_views', 0, 'name']],
      [{ tasks: { saved_views: [{ id: 'a', name: 'n'.repeat(61) }] } }, ['body', 'tasks', 'saved_views', 0, 'name']],
      [{ tasks: { saved_views: [{ id: 'a', name: 'n', query: 'q'.repeat(501) }] } }, ['body', 'tasks', 'saved_views', 0, 'query']],
      [{ tasks: { saved_views: [{ name: 'n' }] } }, ['body', 'tasks', 'saved_views', 0, 'id']],
      [{ tasks: { view: 'table' } }, ['body', 'tasks', 'view']],
      [{ theme: 'sepia' }, ['body', 'theme']],
      [{ timezone: 't'.repeat(65) }, ['body', 'timezone']],
      [{ version: 1.5 }, ['body', 'version']],
    ]
    for (const [body, loc] of invalid) {
      const r = await patch(user, body)
      expect([JSON.stringify(body).slice(0, 60), r.status]).toEqual([JSON.stringify(body).slice(0, 60), 422])
      const issue = r.body.error.details.errors[0]
      expect(issue.loc).toEqual(loc)
      expect(issue).toEqual({ loc, type: expect.any(String), msg: expect.any(String), message: issue.msg, input: expect.anything() })
    }
    // The limits themselves are allowed.
    const atLimits = {
      dashboard: { hidden: Array.from({ length: 20 }, (_, i) => `c-${i}`), order: ['x'.repeat(40)] },
      favorites: { agents: Array.from({ length: 50 }, () => uuid) },
      locale: 'zh-Hant-TW',
      tasks: { saved_views: Array.from({ length: 20 }, (_, i) => ({ id: 'i'.repeat(40).slice(i), name: 'n'.repeat(60), query: 'q'.repeat(500) })) },
      timezone: 't'.repeat(64),
    }
    expect((await patch(user, atLimits)).status).toBe(200)
  })

  it('works with an API key, and needs a credential', async () => {
    const user = await createUser(t.ctx)
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body: { name: 'k' } })).body.key
    expect((await call(t.app, 'PATCH', '/api/me/preferences', { token: key, body: { theme: 'dark' } })).body).toEqual({ theme: 'dark' })
    expect((await call(t.app, 'PATCH', '/api/me/preferences', { body: { theme: 'dark' } })).status).toBe(401)
  })
})

describe('mergePreferences', () => {
  it('does not change the stored document it is given', () => {
    const current = { dashboard: { hidden: ['a'] }, theme: 'dark' }
    const merged = mergePreferences(current, { dashboard: { hidden: null }, theme: null })
    expect(merged).toEqual({})
    expect(current).toEqual({ dashboard: { hidden: ['a'] }, theme: 'dark' })
  })
})
