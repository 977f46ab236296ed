import { describe, expect, it } from 'vitest'
import { type TranscriptChunk, TranscriptBuffer } from '../../src/runner/transcript.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function buffer(options: { intervalMs?: number; maxChars?: number; failures?: number } = {}) {
  const sent: TranscriptChunk[][] = []
  const errors: unknown[] = []
  let failures = options.failures ?? 0
  const b = new TranscriptBuffer(
    async (entries) => {
      if (failures-- > 0) throw new Error('server away')
      sent.push(entries.map((e) => ({ ...e })))
    },
    options.intervalMs ?? 50,
    options.maxChars ?? 4096,
    (err) => errors.push(err),
  )
  return { b, sent, errors }
}

describe('transcript buffer', () => {
  it('sends on its interval, merging consecutive text of one role into one entry', async () => {
    const { b, sent } = buffer({ intervalMs: 50 })
    b.add('agent', 'one\n')
    b.add('agent', 'two\n')
    b.add('system', 'note')
    expect(sent).toEqual([])
    await sleep(120)
    expect(sent).toEqual([[{ role: 'agent', text: 'one\ntwo\n' }, { role: 'system', text: 'note' }]])
  })

  it('keeps each tool call an entry of its own', async () => {
    const { b, sent } = buffer({ intervalMs: 60_000 })
    b.add('tool', 'Bash: ls\nREADME.md\n')
    b.add('tool', 'Read: README.md\n# Hi\n')
    await b.flush()
    expect(sent).toEqual([[{ role: 'tool', text: 'Bash: ls\nREADME.md\n' }, { role: 'tool', text: 'Read: README.md\n# Hi\n' }]])
  })

  it('sends at once when the buffered text reaches the size limit', async () => {
    const { b, sent } = buffer({ intervalMs: 60_000, maxChars: 10 })
    b.add('agent', '12345')
    await sleep(10)
    expect(sent).toEqual([])
    b.add('agent', '67890')
    await b.flush()
    expect(sent).toEqual([[{ role: 'agent', text: '1234567890' }]])
  })

  it('keeps entries whose send failed and sends them, in order, next time', async () => {
    const { b, sent, errors } = buffer({ intervalMs: 30, failures: 1 })
    b.add('agent', 'first ')
    await b.flush()
    expect(errors).toHaveLength(1)
    b.add('agent', 'second')
    await sleep(80)
    expect(sent).toEqual([[{ role: 'agent', text: 'first second' }]])
  })

  it('drops what is buffered once closed', async () => {
    const { b, sent } = buffer({ intervalMs: 20 })
    b.add('agent', 'late')
    b.close()
    b.add('agent', 'later')
    await sleep(60)
    await b.flush()
    expect(sent).toEqual([])
  })
})
