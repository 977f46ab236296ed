// Why a queued run waits, in words: the server's reason first, else worked out from the runners.
import { describe, expect, it } from 'vitest'
import type { Runner } from '#src/client/types.ts'
import { waitingReason } from './waiting.ts'

const runner = (runner_id: string, adapters: string[] | null, status: Runner['status'] = 'online'): Runner => ({
  runner_id, adapters, status, versions: {}, first_seen_at: '', last_seen_at: '', running_runs: [], cooldowns: [],
})

describe('waitingReason', () => {
  it("takes the server's waiting_reason as it is", () => {
    expect(waitingReason({ waiting_reason: 'Agent paused' }, 'agent_cli_1', [])).toEqual({ text: 'Agent paused', stuck: true })
  })

  it('names the product and the runners that lack it', () => {
    const found = waitingReason({}, 'agent_cli_1', [runner('dana@laptop', ['process']), runner('ci@box', ['agent_cli_2']), runner('old', ['agent_cli_1'], 'gone')])
    expect(found).toEqual({ text: 'No connected runner can run Claude Code: install it on dana@laptop and ci@box or pick another agent type.', stuck: true })
  })

  it('says when no runner is connected, and waits plainly when one can take it (a simulating runner takes all)', () => {
    expect(waitingReason({ waiting_reason: null }, 'agent_cli_1', [runner('x', ['agent_cli_1'], 'stopped')]).text).toBe('No runner is connected: connect one to run it.')
    expect(waitingReason({}, 'agent_cli_1', [runner('sim', null)])).toEqual({ text: 'Waiting for a runner to pick it up.', stuck: false })
    expect(waitingReason({}, 'agent_cli_2', [runner('box', ['agent_cli_2'])]).stuck).toBe(false)
    expect(waitingReason({}, 'agent_cli_2', undefined).stuck).toBe(false)
  })
})
