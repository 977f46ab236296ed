// The board: one column per status in the spec's order. Cards move by drag and drop, from the
// keyboard with Shift+Left/Right on a focused card, or with each card's "Move to…" list (a phone
// has no drag and drop).
import { type DragEvent, useEffect, useRef, useState } from 'react'
import type { Agent, Task, TaskStatus } from '#src/client/types.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useNavigate } from '@tanstack/react-router'
import { Badge } from '../Badge.tsx'
import { BOARD_COLUMNS } from './filters.ts'

const DRAG_TYPE = 'application/x-shopfloor-task'

interface BoardProps {
  companyId: string
  /** The board's tasks, each column's newest (useBoardTasks). */
  tasks: Task[]
  /** Statuses with more tasks than their column shows: the count reads "100+". */
  more: Set<TaskStatus>
  agents: Map<string, Agent>
  /** `refused` is called when the server refuses the move (the card is then back in its column). */
  onMove: (task: Task, status: TaskStatus, refused?: () => void) => void
}

export function TaskBoard({ companyId, tasks, more, agents, onMove }: BoardProps) {
  const [over, setOver] = useState<TaskStatus | null>(null)
  // A card moved from the keyboard is a new element in its new column: the focus goes with it,
  // so Shift+Arrow can move it on. A refused move puts the card back, a new element again in its
  // old column: the focus follows it there too.
  const [stepped, setStepped] = useState<{ id: string; status: TaskStatus } | null>(null)
  const byId = new Map(tasks.map((t) => [t.id, t]))

  function drop(event: DragEvent, status: TaskStatus) {
    event.preventDefault()
    setOver(null)
    const task = byId.get(event.dataTransfer.getData(DRAG_TYPE))
    if (task && task.status !== status) onMove(task, status)
  }

  return (
    <div className="board">
      {BOARD_COLUMNS.map((status, column) => {
        const cards = tasks.filter((t) => t.status === status)
        return (
          <section
            key={status}
            className={`column${over === status ? ' drop' : ''}`}
            aria-label={humanize(status)}
            data-column={status}
            onDragOver={(e) => {
              e.preventDefault()
              e.dataTransfer.dropEffect = 'move'
              setOver(status)
            }}
            onDragLeave={() => setOver((s) => (s === status ? null : s))}
            onDrop={(e) => drop(e, status)}
          >
            <h3><span>{humanize(status)}</span><span className="muted">{cards.length}{more.has(status) && '+'}</span></h3>
            {cards.map((task) => (
              <TaskCard
                key={task.id}
                task={task}
                assignee={task.assignee_agent_id ? agents.get(task.assignee_agent_id) : undefined}
                companyId={companyId}
                focus={stepped?.id === task.id && stepped.status === status}
                onStep={(step) => {
                  const target = BOARD_COLUMNS[column + step]
                  if (!target) return
                  setStepped({ id: task.id, status: target })
                  onMove(task, target, () => setStepped({ id: task.id, status }))
                }}
                onMoveTo={(target) => onMove(task, target)}
              />
            ))}
          </section>
        )
      })}
    </div>
  )
}

function TaskCard({ task, assignee, companyId, focus, onStep, onMoveTo }: {
  task: Task; assignee?: Agent; companyId: string; focus: boolean; onStep: (step: -1 | 1) => void; onMoveTo: (status: TaskStatus) => void
}) {
  const format = useFormat()
  const navigate = useNavigate()
  const card = useRef<HTMLElement>(null)
  useEffect(() => {
    if (focus) card.current?.focus()
  }, [focus])
  const open = () => navigate({ to: '/c/$companyId/tasks/$taskRef', params: { companyId, taskRef: task.key } })
  return (
    <article
      ref={card}
      className="task-card"
      draggable
      tabIndex={0}
      data-task={task.key}
      aria-label={`${task.key} ${task.title}. Enter opens, Shift+Arrow keys move it.`}
      onDragStart={(e) => {
        e.dataTransfer.setData(DRAG_TYPE, task.id)
        e.dataTransfer.effectAllowed = 'move'
      }}
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === 'Enter') open()
        else if (e.shiftKey && e.key === 'ArrowLeft') onStep(-1)
        else if (e.shiftKey && e.key === 'ArrowRight') onStep(1)
        else return
        e.preventDefault()
      }}
    >
      <div className="key">{task.key}</div>
      <div>{task.title}</div>
      <div className="meta">
        {task.priority !== 'medium' && task.priority !== 'none' && <Badge value={task.priority} />}
        {assignee && <span className="badge">{assignee.name}</span>}
        {task.due_date && <span className="badge">Due {format.date(task.due_date)}</span>}
        {/* A move without dragging: a finger on a phone, or anyone who prefers a list. */}
        <select className="move-to" aria-label={`Move ${task.key} to`} value="" onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.stopPropagation()}
          onChange={(e) => e.target.value && onMoveTo(e.target.value as TaskStatus)}>
          <option value="" disabled>Move to…</option>
          {BOARD_COLUMNS.filter((s) => s !== task.status).map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
        </select>
      </div>
    </article>
  )
}
