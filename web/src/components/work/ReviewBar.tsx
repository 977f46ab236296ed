import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { ReviewRequest, Task } from '#src/client/types.ts'
import { ErrorText } from '../ErrorText.tsx'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'

/**
 * On a task in review: Approve (done), Request changes with a comment (back to its assignee,
 * who gets a run), or Reopen (back to todo, nothing queued). POST /tasks/{ref}/review.
 */
export function ReviewBar({ companyId, task }: { companyId: string; task: Task }) {
  const client = useQueryClient()
  const [asking, setAsking] = useState(false)
  const [comment, setComment] = useState('')
  const done = (updated: Task) => {
    client.setQueryData(keys.company(companyId, 'tasks', 'one', task.key), updated)
    void client.invalidateQueries({ queryKey: keys.company(companyId, 'tasks') })
    void client.invalidateQueries({ queryKey: keys.company(companyId, 'runs') })
    setAsking(false)
    setComment('')
  }
  const review = useMutation({ mutationFn: (body: ReviewRequest) => api.tasks.review(companyId, task.id, body), onSuccess: done })
  const reopen = useMutation({ mutationFn: () => api.tasks.update(companyId, task.id, { status: 'todo' }), onSuccess: done })
  if (task.status !== 'in_review') return null
  const busy = review.isPending || reopen.isPending
  return (
    <section className="panel work-review" aria-label="Review">
      <div className="page-head" style={{ marginBottom: 0 }}>
        <h2 style={{ margin: 0 }}>Review</h2>
        <div className="actions">
          <button className="primary" disabled={busy} onClick={() => review.mutate({ decision: 'approve' })}>Approve</button>
          <button disabled={busy} aria-expanded={asking} onClick={() => setAsking(!asking)}>Request changes</button>
          <button className="link" disabled={busy} onClick={() => reopen.mutate()}>Reopen</button>
        </div>
      </div>
      {asking && (
        <form onSubmit={(e) => { e.preventDefault(); review.mutate({ decision: 'request_changes', comment: comment.trim() }) }}>
          <label className="field">What to change<textarea required rows={3} value={comment} onChange={(e) => setComment(e.target.value)} /></label>
          <button type="submit" className="primary" disabled={busy || !comment.trim()}>Send back to the assignee</button>
        </form>
      )}
      <ErrorText error={review.error ?? reopen.error} />
    </section>
  )
}
