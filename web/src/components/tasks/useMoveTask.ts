// Moving a task to another status (the board's drag and drop and its keyboard moves): the card
// moves at once in every cached task list, and the lists are refetched once the last move is in.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Task, TaskStatus } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { boardColumn, keys } from '../../lib/queries.ts'

export function useMoveTask(companyId: string) {
  const client = useQueryClient()
  const lists = keys.company(companyId, 'tasks')
  const mutationKey = ['move-task', companyId]
  return useMutation({
    mutationKey,
    // Moves go to the server one after another, in the order they were made: two quick
    // Shift+Arrow presses sent side by side could land in the other order and leave the task
    // where the first press put it. Each card still moves on the screen at once (onMutate).
    scope: { id: `move-task:${companyId}` },
    // Live events do not refetch the lists meanwhile (lib/stale.ts): they would undo the moves on the screen.
    meta: { holds: lists },
    mutationFn: ({ task, status }: { task: Task; status: TaskStatus }) => api.tasks.update(companyId, task.id, { status }),
    async onMutate({ task, status }) {
      await client.cancelQueries({ queryKey: lists })
      const before = client.getQueriesData<Task[] | Task>({ queryKey: lists })
      client.setQueriesData<Task[] | Task>({ queryKey: lists }, (data) =>
        Array.isArray(data) ? data.map((t) => (t.id === task.id ? { ...t, status } : t)) : data,
      )
      // The board's column of the new status (useBoardTasks) holds the card too, so that it does
      // not vanish while the old column's list comes back without it before the new one's does.
      for (const [key, data] of before) {
        if (boardColumn(key) === status && Array.isArray(data) && !data.some((t) => t.id === task.id)) client.setQueryData(key, [{ ...task, status }, ...data])
      }
      return { before }
    },
    onError(_error, _vars, context) {
      for (const [key, data] of context?.before ?? []) client.setQueryData(key, data)
    },
    // A refetch while later moves wait would show the card where an earlier move left it.
    onSettled: () => client.isMutating({ mutationKey }) === 1 ? client.invalidateQueries({ queryKey: lists }) : undefined,
  })
}
