// Progress of the guided start: a step is done when the company has what it makes (an agent, a
// runner heard from, a task), or skipped (remembered in this browser).
import { useState } from 'react'
import { useAgents, useRunners, useTasks } from './queries.ts'

export type StartStep = 'hire' | 'runner' | 'task'
export const START_STEPS: StartStep[] = ['hire', 'runner', 'task']

/** The newest task alone: the task step shows it, and its presence marks the step done. */
export const FIRST_TASK = { limit: 1 }

const storageKey = (companyId: string) => `shopfloor.start.${companyId}.skipped`

export function useStartProgress(companyId: string) {
  const agents = useAgents(companyId)
  // Whether the company has a task: one is enough (a page of them is 300 KB in a large company).
  const tasks = useTasks(companyId, FIRST_TASK)
  const runners = useRunners(companyId)
  const [skippedSteps, setSkipped] = useState<StartStep[]>(() => JSON.parse(localStorage.getItem(storageKey(companyId)) ?? '[]'))
  const done = (step: StartStep) =>
    step === 'hire' ? (agents.data?.length ?? 0) > 0 : step === 'runner' ? (runners.data?.length ?? 0) > 0 : (tasks.data?.length ?? 0) > 0
  const loaded = Boolean(agents.data && tasks.data && runners.data)
  return {
    loaded,
    done,
    skipped: (step: StartStep) => skippedSteps.includes(step),
    skip(step: StartStep) {
      const next = [...new Set([...skippedSteps, step])]
      localStorage.setItem(storageKey(companyId), JSON.stringify(next))
      setSkipped(next)
    },
    /** Steps neither done nor skipped. */
    left: () => START_STEPS.filter((step) => !done(step) && !skippedSteps.includes(step)),
  }
}
