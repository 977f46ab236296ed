// The HTTP ceilings: the same Fastify as Shopfloor with nothing else in it.
//   GET /constant   answers a constant
//   GET /row/:id    one primary-key SELECT through a `pg` Pool (the size Shopfloor uses)
//   POST  /api/companies/:company/runs/claim
//   PATCH /api/companies/:company/runs/:id
//                   the least a runner's cycle can cost: the same three requests as Shopfloor's
//                   claim, progress report and final report (so the same runner loops drive
//                   them), each one committed single-row update of bench_jobs and nothing else
// Started as its own process by the harness, with BENCH_DATABASE_URL naming a database that
// holds bench_rows and bench_jobs (made here on start; BENCH_JOBS queued jobs, default 10,000).
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 })
await pool.query(`CREATE TABLE IF NOT EXISTS bench_rows (id integer PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`)
await pool.query(`INSERT INTO bench_rows (id, name) SELECT g, 'row ' || g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING`)
await pool.query(`DROP TABLE IF EXISTS bench_jobs`)
await pool.query(`CREATE TABLE bench_jobs (id integer PRIMARY KEY, status text NOT NULL DEFAULT 'queued', runner_id text, reports integer NOT NULL DEFAULT 0)`)
await pool.query(`CREATE INDEX bench_jobs_queued ON bench_jobs (id) WHERE status = 'queued'`)
await pool.query(`INSERT INTO bench_jobs (id) SELECT generate_series(1, $1::integer)`, [Number(process.env.BENCH_JOBS ?? 10_000)])
await pool.query('ANALYZE bench_jobs')

const app = Fastify({ logger: false })
app.get('/constant', async () => ({ status: 'ok' }))
app.get('/row/:id', async (request) => {
  const { rows } = await pool.query('SELECT id, name, created_at FROM bench_rows WHERE id = $1', [Number((request.params as { id: string }).id)])
  return rows[0]
})
app.post('/api/companies/:company/runs/claim', async (request, reply) => {
  const { runner_id: runnerId } = request.body as { runner_id: string }
  const { rows } = await pool.query(
    `UPDATE bench_jobs SET status = 'running', runner_id = $1
      WHERE id = (SELECT id FROM bench_jobs WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, status`,
    [runnerId],
  )
  if (!rows[0]) return reply.code(204).send()
  return { run: rows[0] }
})
app.patch('/api/companies/:company/runs/:id', async (request, reply) => {
  const { runner_id: runnerId, status } = request.body as { runner_id: string; status: string }
  const { rows } = await pool.query(
    `UPDATE bench_jobs SET status = $3, reports = reports + 1 WHERE id = $1 AND runner_id = $2 AND status = 'running' RETURNING id, status, reports`,
    [Number((request.params as { id: string }).id), runnerId, status],
  )
  if (!rows[0]) return reply.code(409).send({ error: 'not running here' })
  return rows[0]
})

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
process.once('SIGTERM', () => {
  app.close().then(() => pool.end()).then(() => process.exit(0))
})
