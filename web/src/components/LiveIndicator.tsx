import type { LiveState } from '../lib/live.ts'

const TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  down: 'Live updates down, reconnecting',
  stopped: 'Live updates stopped',
}

/** What a phone's top bar has room for: a word, where the sentence wrapped a letter a line. */
const SHORT: Record<LiveState, string> = { connecting: '', live: '', down: 'Offline', stopped: 'Stopped' }

/** Shows whether the live event stream is connected; loud when it is not. */
export function LiveIndicator({ state }: { state: LiveState }) {
  const tone = state === 'live' ? '' : state === 'connecting' ? ' connecting' : ' down'
  return (
    <span className={`live${tone}`} role="status" data-live={state} title={TEXT[state]}>
      <span className="dot" aria-hidden />
      <span className="live-text">{TEXT[state]}</span>
      {SHORT[state] && <span className="live-short" aria-hidden>{SHORT[state]}</span>}
    </span>
  )
}
