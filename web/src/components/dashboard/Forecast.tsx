// The month-end forecast (API-DECISIONS.md "Spend control") as the costs page and the dashboard's
// spend card show it: per agent the projection and when its budget is reached, and the method.
import { Link } from '@tanstack/react-router'
import type { Forecast } from '#src/client/types.ts'
import { budgetReachedText } from '../../lib/spend.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useAgents } from '../../lib/queries.ts'

/**
 * The one line saying how the projection is made. The API names its method; the linear one is
 * said in plain words (its full description on hover), any other in the API's own words.
 */
export function ForecastMethod({ forecast }: { forecast: Forecast }) {
  const plain = forecast.method.startsWith('linear:')
    ? "Projected at this month's pace: spend so far divided by the share of the month gone (at least a day); a budget is reached on the day spend meets it, or would at that pace."
    : `How it is projected: ${forecast.method}`
  return <p className="muted small forecast-method" data-forecast-method title={forecast.method}>{plain}</p>
}

/**
 * Agents with spend or a budget, largest projection first (the API's order): name, projection,
 * budget and when it is reached. `limit` keeps the first few (the dashboard card).
 */
export function ForecastAgents({ companyId, forecast, month, limit }: { companyId: string; forecast: Forecast; month: string; limit?: number }) {
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const byId = new Map((agents.data ?? []).map((a) => [a.id, a]))
  const rows = limit ? forecast.by_agent.slice(0, limit) : forecast.by_agent
  if (rows.length === 0) return <p className="empty">No agent has spent or has a budget this month.</p>
  return (
    <div className="table-wrap">
      <table aria-label="Forecast by agent">
        <thead><tr><th>Agent</th><th className="right">Month end</th>{!limit && <th className="right hide-phone">Budget</th>}<th>Budget reached</th></tr></thead>
        <tbody>
          {rows.map((row) => {
            const agent = byId.get(row.agent_id)
            const budget = agent?.monthly_budget_cents ?? 0
            return (
              <tr key={row.agent_id} data-forecast-agent={agent?.name}>
                <td className="free words"><Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: row.agent_id }}>{agent?.name ?? 'Agent'}</Link></td>
                <td className="right">{format.money(row.month_end_cents)}</td>
                {!limit && <td className="right hide-phone">{budget > 0 ? format.money(budget) : 'None'}</td>}
                <td className={row.budget_reached_on ? 'warn-text' : 'muted'}>{budgetReachedText(format, budget, row.budget_reached_on, month)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
