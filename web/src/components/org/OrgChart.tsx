// The org chart as a real chart: a top-down tree laid out by dagre, drawn by React Flow with zoom,
// pan and a minimap (usable at 100 agents). Each card shows the agent's live status and the task
// its current run works on. Dropping a card onto another makes the dropped agent report to it;
// the server refuses a cycle (ORG_CYCLE) and the refusal is shown in plain words.
import { roleLabel } from '../../lib/format.ts'
import dagre from '@dagrejs/dagre'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { Background, Controls, type Edge, Handle, MiniMap, type Node, type NodeProps, Position, ReactFlow, ReactFlowProvider, useNodesState, useReactFlow } from '@xyflow/react'
import '@xyflow/react/dist/style.css'
import { useEffect, useMemo, useState } from 'react'
import type { Agent, OrgNode } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { errorCode, errorLines } from '../../lib/errors.ts'
import { keys, useRuns } from '../../lib/queries.ts'
import { AgentAvatar } from '../AgentAvatar.tsx'
import { Badge } from '../Badge.tsx'

const WIDTH = 230
const HEIGHT = 84
/**
 * Agents from which the chart has its overview map: a chart of a few agents fits on the screen,
 * where the map only hid the corner card.
 */
const MAP_FROM = 13

type CardData = { agent: Agent; task: string | null }
type CardNode = Node<CardData, 'agent'>

function AgentCard({ data }: NodeProps<CardNode>) {
  const { agent, task } = data
  return (
    <div className={`org-card ${agent.status}`} data-agent-node={agent.name} title="Drag onto another agent to change who this one reports to">
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="row" style={{ gap: 8, flexWrap: 'nowrap' }}>
        <AgentAvatar agent={agent} />
        <div style={{ minWidth: 0 }}>
          <strong>{agent.name}</strong>
          <div className="muted small ellipsis">{agent.title ?? (agent.role ? roleLabel(agent.role) : '')}</div>
        </div>
        <span className="grow" />
        <Badge value={agent.status} />
      </div>
      <div className="small ellipsis" style={{ marginTop: 4 }}>{task ? <>Working on {task}</> : <span className="muted">No run in progress</span>}</div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  )
}

const nodeTypes = { agent: AgentCard }

/** Positions from dagre: managers above their reports. */
function layout(org: OrgNode[], taskOf: (agentId: string) => string | null): { nodes: CardNode[]; edges: Edge[] } {
  const graph = new dagre.graphlib.Graph()
  graph.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 56 })
  graph.setDefaultEdgeLabel(() => ({}))
  const nodes: CardNode[] = []
  const edges: Edge[] = []
  const visit = (node: OrgNode, manager: Agent | null) => {
    graph.setNode(node.agent.id, { width: WIDTH, height: HEIGHT })
    nodes.push({ id: node.agent.id, type: 'agent', position: { x: 0, y: 0 }, data: { agent: node.agent, task: taskOf(node.agent.id) } })
    if (manager) {
      graph.setEdge(manager.id, node.agent.id)
      edges.push({ id: `${manager.id}->${node.agent.id}`, source: manager.id, target: node.agent.id, type: 'smoothstep' })
    }
    for (const report of node.reports) visit(report, node.agent)
  }
  for (const root of org) visit(root, null)
  dagre.layout(graph)
  for (const node of nodes) {
    const { x, y } = graph.node(node.id)
    node.position = { x: x - WIDTH / 2, y: y - HEIGHT / 2 }
  }
  return { nodes, edges }
}

export function OrgChart(props: { companyId: string; org: OrgNode[] }) {
  return (
    <ReactFlowProvider>
      <Chart {...props} />
    </ReactFlowProvider>
  )
}

function Chart({ companyId, org }: { companyId: string; org: OrgNode[] }) {
  const client = useQueryClient()
  const navigate = useNavigate()
  const flow = useReactFlow()
  const running = useRuns(companyId, { status: 'running' })
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null)

  const taskOf = (agentId: string) => {
    const run = running.data?.find((r) => r.agent_id === agentId)
    if (!run) return null
    // A list of runs names each run's task.
    return run.task_key ? `${run.task_key} ${run.task_title}` : 'a run without a task'
  }
  const { nodes, edges } = useMemo(() => layout(org, taskOf), [org, running.data]) // eslint-disable-line react-hooks/exhaustive-deps
  // The cards as React Flow holds them while dragged; back to the layout after every change or drop.
  const [shown, setShown, onNodesChange] = useNodesState<CardNode>(nodes)
  const resetLayout = () => setShown(nodes)
  useEffect(() => setShown(nodes), [nodes, setShown])
  const names = new Map(nodes.map((n) => [n.id, n.data.agent.name]))

  const reparent = useMutation({
    mutationFn: ({ agentId, managerId }: { agentId: string; managerId: string }) => api.agents.update(companyId, agentId, { reports_to_id: managerId }),
    onSuccess(_agent, { agentId, managerId }) {
      setMessage({ text: `${names.get(agentId)} now reports to ${names.get(managerId)}.`, error: false })
      void client.invalidateQueries({ queryKey: keys.company(companyId) })
    },
    onError(error, { agentId, managerId }) {
      const text = errorCode(error) === 'ORG_CYCLE'
        ? `${names.get(agentId)} cannot report to ${names.get(managerId)}: ${names.get(managerId)} already reports to ${names.get(agentId)}, directly or through others. Nothing was changed.`
        : errorLines(error).join(' ')
      setMessage({ text, error: true })
    },
    // Wherever the card was dropped, it goes back to its place in the (possibly new) layout.
    onSettled: () => resetLayout(),
  })

  return (
    <>
      {message && <p className={message.error ? 'error' : 'notice'} role={message.error ? 'alert' : 'status'}>{message.text}</p>}
      <div className="org-chart" aria-label="Org chart diagram">
        <ReactFlow
          nodes={shown}
          edges={edges}
          nodeTypes={nodeTypes}
          fitView
          fitViewOptions={{ maxZoom: 1 }}
          minZoom={0.1}
          nodesConnectable={false}
          onNodesChange={onNodesChange}
          onNodeDragStop={(_e, node) => {
            const target = flow.getIntersectingNodes(node).find((n) => n.id !== node.id)
            const current = nodes.find((n) => n.id === node.id)?.data.agent.reports_to_id
            if (target && target.id !== current) reparent.mutate({ agentId: node.id, managerId: target.id })
            else resetLayout()
          }}
          onNodeDoubleClick={(_e, node) => void navigate({ to: '/c/$companyId/agents/$agentId', params: { companyId, agentId: node.id } })}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
          {shown.length >= MAP_FROM && <MiniMap pannable zoomable />}
        </ReactFlow>
      </div>
      <p className="muted small">Drag an agent onto another to change whom it reports to. Double-click to open an agent. Scroll to zoom, drag the background to pan.</p>
    </>
  )
}
