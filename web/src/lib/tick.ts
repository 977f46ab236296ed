// Relative times ("2 minutes ago") that keep moving while a page stays open: a component that
// shows them calls useTick(), and re-renders with its children every tick. One timer for all.
import { useSyncExternalStore } from 'react'

const TICK_MS = 20_000
const listeners = new Set<() => void>()
let timer: ReturnType<typeof setInterval> | undefined
let now = Date.now()

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  timer ??= setInterval(() => {
    now = Date.now()
    for (const l of listeners) l()
  }, TICK_MS)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) {
      clearInterval(timer)
      timer = undefined
    }
  }
}

/** The time of the last tick; calling it makes the component re-render on every tick. */
export function useTick(): number {
  return useSyncExternalStore(subscribe, () => now)
}
