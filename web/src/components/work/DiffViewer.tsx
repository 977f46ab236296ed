import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { Diff, Hunk, parseDiff } from 'react-diff-view'
import 'react-diff-view/style/index.css'
import { ErrorText } from '../ErrorText.tsx'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'
import './work.css'

/**
 * A run's diff (GET /runs/{id}/patch), file by file, drawn by react-diff-view: one column, which
 * reads on a phone as on a desktop; long lines scroll inside their file. A clipped patch ends
 * with the server's note, shown under the files.
 */
export function DiffViewer({ companyId, runId }: { companyId: string; runId: string }) {
  const patch = useQuery({ queryKey: keys.company(companyId, 'runs', 'patch', runId), queryFn: () => api.runs.patch(companyId, runId), staleTime: Infinity })
  const files = useMemo(() => (patch.data ? parseDiff(patch.data, { nearbySequences: 'zip' }) : []), [patch.data])
  const note = patch.data?.match(/^# Shopfloor: .*$/m)?.[0]?.slice(2)
  if (patch.error) return <ErrorText error={patch.error} retry={() => void patch.refetch()} />
  if (patch.isPending) return <p className="muted">Loading the diff…</p>
  if (patch.data === null || files.length === 0) return <p className="muted">No diff for this run.</p>
  return (
    <div className="work-diff" aria-label="Diff">
      {files.map((file) => {
        const path = file.type === 'delete' ? file.oldPath : file.newPath
        const added = file.hunks.reduce((n, h) => n + h.changes.filter((c) => c.type === 'insert').length, 0)
        const removed = file.hunks.reduce((n, h) => n + h.changes.filter((c) => c.type === 'delete').length, 0)
        return (
          <details key={`${file.oldPath}->${file.newPath}`} open className="work-file">
            <summary>
              <span className="mono">{file.type === 'rename' ? `${file.oldPath} → ${file.newPath}` : path}</span>{' '}
              <span className="work-plus">+{added}</span> <span className="work-minus">−{removed}</span>
            </summary>
            {file.hunks.length ? (
              <div className="work-file-body">
                <Diff viewType="unified" diffType={file.type} hunks={file.hunks}>
                  {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
                </Diff>
              </div>
            ) : <p className="muted small">No text changes (a binary file, or only its mode).</p>}
          </details>
        )
      })}
      {note && <p className="notice" role="note">{note}</p>}
    </div>
  )
}
