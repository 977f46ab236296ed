// Moving a task to another status (the board's drag and drop): the card moves at once in every
// cached task list, and the lists are refetched whatever the answer.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Task, TaskStatus } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { boardColumn, keys } from '../../lib/queries.ts'

export function useMoveTask(companyId: string) {
  const client = useQueryClient()
  const lists = keys.company(companyId, 'tasks')
  return useMutation({
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
    onSettled: () => client.invalidateQueries({ queryKey: lists }),
  })
}
