// The web app's pure rules, without a browser: task filter query strings, the preferences merge
// the optimistic update relies on, which queries a live event makes stale, errors in words, and
// money entry, saving preferences.
import { MutationObserver, QueryClient } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError, NetworkError } from '#src/client/http.ts'
import type { LiveEvent, Preferences, PreferencesPatch, User } from '#src/client/types.ts'
import { BOARD_COLUMNS, filtersFromQuery, queryFromFilters } from '../components/tasks/filters.ts'
import { prefixFor } from './company.ts'
import { errorLines, isRetryable } from './errors.ts'
import { makeFormatter, parseCents } from './format.ts'
import { mergePreferences } from '#src/contract/merge-preferences.ts'
import { savePreferencesOptions } from './save-preferences.ts'
import { GATHER_MS, staleGatherer } from './stale.ts'

describe('task filters as a query string', () => {
  it('round-trips every filter, with repeated statuses', () => {
    const filters = { q: 'launch', status: ['todo' as const, 'blocked' as const], assignee_agent_id: 'a1', project_id: 'p1', goal_id: 'g1', created_by: 'me' as const }
    const query = queryFromFilters(filters)
    expect(query).toBe('assignee_agent_id=a1&project_id=p1&goal_id=g1&q=launch&status=todo&status=blocked&created_by=me')
    expect(filtersFromQuery(query)).toEqual(filters)
  })

  it('drops blank values and any created_by other than me', () => {
    expect(filtersFromQuery('q=%20%20&created_by=someone&status=')).toEqual({})
    expect(queryFromFilters({})).toBe('')
  })

  it('orders the board columns as the spec does, without cancelled', () => {
    expect(BOARD_COLUMNS).toEqual(['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done'])
  })
})

describe('the proposed task prefix', () => {
  it('takes up to four capitals of the first word, never starting with a digit', () => {
    expect(prefixFor('Acme Robotics')).toBe('ACME')
    expect(prefixFor('Beta Labs')).toBe('BETA')
    expect(prefixFor('42 Dune Café')).toBe('SVC')
    expect(prefixFor('3M')).toBe('M')
    expect(prefixFor('')).toBe('SVC')
  })
})

describe('mergePreferences', () => {
  it('merges objects key by key, replaces lists and removes nulls', () => {
    const current = { theme: 'dark' as const, dashboard: { hidden: ['spend'], range_days: 7 as const }, tasks: { view: 'board' as const } }
    const merged = mergePreferences(current, { theme: null, dashboard: { hidden: ['agents', 'for-you'] }, tasks: { saved_views: [] } })
    expect(merged).toEqual({ dashboard: { hidden: ['agents', 'for-you'], range_days: 7 }, tasks: { view: 'board', saved_views: [] } })
    expect(current.theme).toBe('dark') // the cached object is not mutated
  })
})

describe('staleGatherer', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())
  function seeded() {
    const client = new QueryClient()
    for (const key of [['c', 'A', 'tasks', 'list', {}], ['c', 'A', 'tasks', 'one', 'X-1'], ['c', 'A', 'dashboard', 14], ['c', 'A', 'runs', 'list', {}], ['c', 'A', 'projects'], ['c', 'A', 'activity'], ['c', 'A', 'comments', 't1'], ['c', 'B', 'tasks', 'list', {}], ['companies']]) {
      client.setQueryData(key, [])
    }
    return client
  }
  const stale = (client: QueryClient) =>
    client.getQueryCache().getAll().filter((q) => q.state.isInvalidated).map((q) => q.queryKey.slice(0, 3).join('/')).sort()
  /** The events, then the window's end. */
  function gather(client: QueryClient, ...events: [string, LiveEvent][]) {
    const gatherer = staleGatherer(client)
    for (const [companyId, event] of events) gatherer.add(companyId, event)
    vi.advanceTimersByTime(GATHER_MS)
    return gatherer
  }

  it('marks the task lists, the task, the dashboard, the runs lists (they name their tasks) and the activity of that company stale on task.updated', () => {
    const client = seeded()
    gather(client, ['A', { type: 'task.updated', id: 't1' }])
    expect(stale(client)).toEqual(['c/A/activity', 'c/A/dashboard', 'c/A/runs', 'c/A/tasks', 'c/A/tasks'])
  })

  it('refetches comments on task.commented and the company list on company.updated', () => {
    const client = seeded()
    gather(client, ['A', { type: 'task.commented', id: 't1' }], ['A', { type: 'company.updated', id: 'A' }])
    expect(stale(client)).toContain('c/A/comments')
    expect(stale(client)).toContain('companies')
    expect(stale(client)).not.toContain('c/B/tasks')
  })

  it("invalidates each query once for a moment's events, at the window's end, and again for later ones", () => {
    const client = seeded()
    const invalidated: string[] = []
    const invalidate = client.invalidateQueries.bind(client)
    client.invalidateQueries = ((filters: { queryKey: unknown[] }) => {
      invalidated.push(filters.queryKey.join('/'))
      return invalidate(filters)
    }) as typeof client.invalidateQueries
    const gatherer = staleGatherer(client)
    // A claim's three events.
    gatherer.add('A', { type: 'agent.updated', id: 'a1' })
    gatherer.add('A', { type: 'task.updated', id: 't1' })
    gatherer.add('A', { type: 'run.updated', id: 'r1' })
    vi.advanceTimersByTime(GATHER_MS - 1)
    expect(invalidated).toEqual([])
    vi.advanceTimersByTime(1)
    expect(invalidated.filter((key) => key === 'c/A/dashboard')).toHaveLength(1)
    expect(invalidated.filter((key) => key === 'c/A/activity')).toHaveLength(1)
    expect(new Set(invalidated).size).toBe(invalidated.length)
    gatherer.add('A', { type: 'task.updated', id: 't1' })
    vi.advanceTimersByTime(GATHER_MS)
    expect(invalidated.filter((key) => key === 'c/A/dashboard')).toHaveLength(2)
    // Stopped (the stream closed), what it gathered is dropped.
    gatherer.add('A', { type: 'project.updated', id: 'p1' })
    gatherer.stop()
    vi.advanceTimersByTime(GATHER_MS)
    expect(invalidated).not.toContain('c/A/projects')
  })
})

describe('errorLines', () => {
  it('lists every validation problem with its field', () => {
    const error = new ApiError(422, 'VALIDATION_ERROR', 'title: too short', {
      errors: [
        { loc: ['body', 'title'], message: 'must NOT have fewer than 1 characters', type: 'minLength' },
        { loc: ['body', 'monthly_budget_cents'], msg: 'must be >= 0', type: 'minimum' },
      ],
    })
    expect(errorLines(error)).toEqual(['title: must NOT have fewer than 1 characters', 'monthly_budget_cents: must be >= 0'])
  })

  it('says what a field with a set form takes, never the pattern it did not match', () => {
    const mismatch = (field: string) => new ApiError(422, 'VALIDATION_ERROR', field, {
      errors: [{ loc: ['body', field], message: "String should match pattern '^[A-Z]+$'", type: 'string_pattern_mismatch' }],
    })
    expect(errorLines(mismatch('locale'))).toEqual(['Locale: use a language tag such as en-US.'])
    expect(errorLines(mismatch('code'))).toEqual(['code: not in the form expected.'])
  })

  it('uses the server message, and words for a network failure', () => {
    expect(errorLines(new ApiError(400, 'ALREADY_DECIDED', 'Approval already decided'))).toEqual(['Approval already decided'])
    expect(errorLines(new NetworkError('fetch failed'))[0]).toMatch(/Cannot reach the server/)
  })

  it('says a missing record plainly, a refusal with who may act, and when trying again may help', () => {
    expect(errorLines(new ApiError(404, 'NOT_FOUND', 'Task not found'))).toEqual(['This task does not exist or was deleted.'])
    expect(errorLines(new ApiError(404, 'NOT_FOUND', 'API key not found'))).toEqual(['This API key does not exist or was deleted.'])
    expect(errorLines(new ApiError(404, 'NOT_FOUND', 'Company not found'))[0]).toMatch(/not one of its members/)
    expect(errorLines(new ApiError(403, 'FORBIDDEN', 'Only an owner or admin can change the company'))).toEqual(['Only an owner or admin can change the company'])
    expect(errorLines(new ApiError(403, 'FORBIDDEN', 'Not allowed'))).toEqual(['Not allowed. An owner or admin of the company can.'])
    const badLink = new ApiError(422, 'VALIDATION_ERROR', 'run_id', { errors: [{ loc: ['path', 'run_id'], message: 'Input should be a valid UUID' }] })
    expect(errorLines(badLink)).toEqual(['This link does not lead to anything: it may be mistyped or cut short.'])
    expect(errorLines(new ApiError(502, 'HTTP_ERROR', 'Bad Gateway'))[0]).toMatch(/could not answer \(error 502\)/)
    expect([new NetworkError('x'), new ApiError(503, 'HTTP_ERROR', ''), new ApiError(429, 'RATE_LIMITED', 'Slow down')].map(isRetryable)).toEqual([true, true, true])
    expect([new ApiError(404, 'NOT_FOUND', 'Task not found'), new ApiError(422, 'VALIDATION_ERROR', 'x'), new Error('x')].map(isRetryable)).toEqual([false, false, false])
  })
})

describe('money', () => {
  it('reads amounts typed by people as cents and refuses the rest', () => {
    expect([parseCents(''), parseCents('12'), parseCents('12.5'), parseCents('0.07')]).toEqual([0, 1200, 1250, 7])
    expect([parseCents('-1'), parseCents('1.234'), parseCents('ten')]).toEqual([null, null, null])
  })

  it('formats cents in the preferred currency and locale', () => {
    expect(makeFormatter({ locale: 'en-US', currency: 'EUR' }).money(123456)).toBe('€1,234.56')
    expect(makeFormatter({ locale: 'de-DE' }).money(150)).toMatch(/^1,50\s\$$/)
  })
})

describe('relative times', () => {
  afterEach(() => vi.useRealTimers())

  it('counts days by the calendar where the person is, hours and minutes by the clock', () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-28T21:30:00Z') }) // a Saturday evening in UTC
    const utc = makeFormatter({ locale: 'en-US', timezone: 'UTC' })
    expect(utc.relative('2026-11-29T08:30:00Z')).toBe('in 11 hours')
    expect(utc.relative('2026-11-29T23:30:00Z')).toBe('tomorrow') // 26 hours, the next date
    expect(utc.relative('2026-11-30T08:30:00Z')).toBe('in 2 days') // Monday morning: 35 hours, two dates on
    expect(utc.relative('2026-11-27T08:00:00Z')).toBe('yesterday') // 37.5 hours ago, the date before
    expect(utc.relative('2026-11-28T21:29:30Z')).toBe('30 seconds ago')
    // In Tokyo it is already Sunday morning: Monday evening there is tomorrow.
    expect(makeFormatter({ locale: 'en-US', timezone: 'Asia/Tokyo' }).relative('2026-11-30T08:30:00Z')).toBe('tomorrow')
  })
})

describe('saving preferences', () => {
  // Saves whose answers the test gives, in the order it chooses; the server applies the patches
  // in the order they were sent, so each answer holds the patches sent up to it.
  function setUp() {
    const client = new QueryClient()
    const me = { id: 'u1', email: 'a@b.c', name: 'A', preferences: { theme: 'light' } } as unknown as User
    client.setQueryData(['me'], me)
    let applied: Preferences = me.preferences
    const answers: (() => void)[] = []
    const save = (patch: PreferencesPatch) => {
      applied = mergePreferences(applied, patch)
      const answer = applied
      const observer = new MutationObserver(client, savePreferencesOptions(client, () => new Promise<Preferences>((resolve) => answers.push(() => resolve(answer)))))
      return observer.mutate(patch)
    }
    const shown = () => client.getQueryData<User>(['me'])!.preferences
    return { client, save, answers, shown }
  }

  it('takes the answer of a save alone', async () => {
    const { client, save, answers, shown } = setUp()
    const done = save({ density: 'compact' })
    await vi.waitFor(() => expect(answers).toHaveLength(1))
    expect(shown()).toMatchObject({ theme: 'light', density: 'compact' })
    answers[0]()
    await done
    expect(shown()).toEqual({ theme: 'light', density: 'compact' })
    expect(client.getQueryState(['me'])!.isInvalidated).toBe(false)
  })

  it('keeps every change of overlapping saves whatever order their answers come in, then fetches the user again', async () => {
    const { client, save, answers, shown } = setUp()
    const first = save({ dashboard: { hidden: ['tasks-blocked'] } })
    const second = save({ dashboard: { range_days: 7 } })
    await vi.waitFor(() => expect(answers).toHaveLength(2))
    answers[1]()
    await second
    expect(shown()).toMatchObject({ dashboard: { hidden: ['tasks-blocked'], range_days: 7 } })
    answers[0]() // answered last, holding only the first change
    await first
    expect(shown()).toMatchObject({ dashboard: { hidden: ['tasks-blocked'], range_days: 7 } })
    expect(client.getQueryState(['me'])!.isInvalidated).toBe(true)
  })
})
