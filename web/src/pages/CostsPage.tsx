import { BarChart } from '../components/BarChart.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { ForecastAgents, ForecastMethod } from '../components/dashboard/Forecast.tsx'
import { useCompanyId } from '../lib/company.ts'
import { thisMonth } from '../lib/spend.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useCosts } from '../lib/queries.ts'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'

/**
 * Spend of one UTC month: the month-end forecast, by agent, by project and by day, with API spend
 * (metered keys) apart from the plan equivalent (runs on a subscription login, priced at list
 * price: no money is spent per run, but budgets count it).
 */
export function CostsPage() {
  const companyId = useCompanyId()
  const format = useFormat()
  const month = useSearch({ from: '/signed-in/c/$companyId/costs' }).month ?? thisMonth()
  const navigate = useNavigate({ from: '/c/$companyId/costs' })
  const setMonth = (next: string) => navigate({ search: next === thisMonth() ? {} : { month: next }, replace: true })
  const costs = useCosts(companyId, month)
  const data = costs.data
  return (
    <>
      <div className="page-head">
        <h1>Costs</h1>
        <label className="row" style={{ gap: 6 }}>Month<input type="month" value={month} style={{ width: 'auto' }} onChange={(e) => e.target.value && setMonth(e.target.value)} /></label>
      </div>
      <ErrorText error={costs.error} />
      {data && (
        <>
          <div className="cards">
            <section className="card"><div className="label">Total</div><div className="value">{format.money(data.total_cents)}</div></section>
            <section className="card" aria-label="API spend">
              <div className="label">API spend</div>
              <div className="value">{format.money(data.total_cents - data.plan_cents)}</div>
              <div className="muted small">billed per token</div>
            </section>
            <section className="card" aria-label="Plan equivalent">
              <div className="label">Plan equivalent</div>
              <div className="value">{format.money(data.plan_cents)}</div>
              <div className="muted small">subscription runs at list price</div>
            </section>
            <section className="card" aria-label="Month-end projection">
              <div className="label">{month < thisMonth() ? 'Month total' : 'Month-end projection'}</div>
              <div className="value">{format.money(data.forecast.month_end_cents)}</div>
              {data.budget_cents > 0 && <div className="muted small">{data.forecast.month_end_cents > data.budget_cents ? 'over' : 'within'} the company budget</div>}
            </section>
            <section className="card"><div className="label">Company budget</div><div className="value">{data.budget_cents ? format.money(data.budget_cents) : 'No limit'}</div></section>
          </div>
          <section className="panel" aria-label="Forecast">
            <h2>Forecast by agent</h2>
            <ForecastAgents companyId={companyId} forecast={data.forecast} month={month} />
            <ForecastMethod forecast={data.forecast} />
          </section>
          {data.by_day.length > 0 && (
            <section className="panel" aria-label="By day">
              <h2>By day</h2>
              <BarChart labels={data.by_day.map((d) => format.day(d.date))} series={[
                { label: 'API spend', color: 'var(--accent)', values: data.by_day.map((d) => d.cost_cents - d.plan_cents) },
                ...(data.plan_cents > 0 ? [{ label: 'Plan equivalent', color: 'var(--warn)', values: data.by_day.map((d) => d.plan_cents) }] : []),
              ]} format={format.money} />
            </section>
          )}
          <div className="grid-2">
            <section className="panel table-wrap" aria-label="By agent">
              <h2>By agent</h2>
              {data.by_agent.length === 0 ? <p className="empty">No spend.</p> : (
                <table>
                  <thead><tr><th>Agent</th><th className="right">Runs</th><th className="right hide-phone">Tokens in / out</th><th className="right">Cost</th></tr></thead>
                  <tbody>
                    {data.by_agent.map((row) => (
                      <tr key={row.agent_id}>
                        <td className="free"><Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: row.agent_id }}>{row.name}</Link></td>
                        <td className="right">{row.runs}</td>
                        <td className="right hide-phone">{format.number(row.tokens_in)} / {format.number(row.tokens_out)}</td>
                        <td className="right">
                          {format.money(row.cost_cents)}
                          {row.plan_cents > 0 && <div className="muted small">{row.plan_cents === row.cost_cents ? 'plan equivalent' : `${format.money(row.plan_cents)} plan equivalent`}</div>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
            <section className="panel" aria-label="By project">
              <h2>By project</h2>
              {data.by_project.length === 0 ? <p className="empty">No spend in projects.</p> : (
                <table><tbody>{data.by_project.map((row) => <tr key={row.project_id ?? 'none'}><td className="free">{row.name ?? 'No project'}</td><td className="right">{format.money(row.cost_cents)}</td></tr>)}</tbody></table>
              )}
            </section>
          </div>
        </>
      )}
    </>
  )
}
