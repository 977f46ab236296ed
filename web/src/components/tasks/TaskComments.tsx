import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { CommentKind, Task } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { keys, useAgents, useComments, useMembers } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'
import { Field } from '../form.tsx'

/** A task's comments, oldest first, and the form to add one. */
export function TaskComments({ companyId, task }: { companyId: string; task: Task }) {
  const client = useQueryClient()
  const format = useFormat()
  const comments = useComments(companyId, task.id)
  const agents = useAgents(companyId, true)
  const members = useMembers(companyId)
  const form = useForm({ body: '', kind: 'comment' })
  const author = (userId: string | null, agentId: string | null) =>
    (agentId && agents.data?.find((a) => a.id === agentId)?.name) || (userId && members.data?.find((m) => m.user_id === userId)?.name) || 'Someone'
  const submit = useSubmit(async () => {
    await api.comments.create(companyId, task.id, { body: form.values.body, kind: form.values.kind as CommentKind })
    form.reset()
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'comments', task.id) })
  })
  const remove = useMutation({
    mutationFn: (commentId: string) => api.comments.delete(companyId, task.id, commentId),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.company(companyId, 'comments', task.id) }),
  })
  return (
    <section className="panel" aria-label="Comments">
      <h2>Comments</h2>
      <ErrorText error={comments.error ?? remove.error} />
      {comments.data?.length === 0 && <p className="empty">No comments yet.</p>}
      {comments.data?.map((comment) => (
        <div key={comment.id} className="comment">
          <div className="row small">
            <strong>{author(comment.author_user_id, comment.author_agent_id)}</strong>
            {comment.kind !== 'comment' && <Badge value={comment.kind} />}
            <span className="muted">{format.dateTime(comment.created_at)}</span>
            <span className="grow" />
            <button className="link small" onClick={() => remove.mutate(comment.id)} aria-label="Delete comment">Delete</button>
          </div>
          <div className="body">{comment.body}</div>
        </div>
      ))}
      <form onSubmit={submit.onSubmit} style={{ marginTop: 12 }}>
        <ErrorText error={submit.error} />
        <Field label="Add a comment"><textarea required {...form.bind('body')} /></Field>
        <div className="actions">
          <select aria-label="Kind" style={{ width: 'auto' }} {...form.bind('kind')}>
            <option value="comment">Comment</option>
            <option value="question">Question</option>
            <option value="plan">Plan</option>
          </select>
          <button className="primary" type="submit" disabled={submit.pending}>Post</button>
        </div>
      </form>
    </section>
  )
}
