// The HTTP ceilings: the same Fastify as Shopfloor with nothing else in it.
//   GET /constant   answers a constant
//   GET /row/:id    one primary-key SELECT through a `pg` Pool (the size Shopfloor uses)
// Started as its own process by the harness, with BENCH_DATABASE_URL naming a database that
// holds bench_rows (made here on start).
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 })
await pool.query(`CREATE TABLE IF NOT EXISTS bench_rows (id integer PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`)
await pool.query(`INSERT INTO bench_rows (id, name) SELECT g, 'row ' || g FROM generate_series(1, 1000) g ON CONFLICT DO NOTHING`)

const app = Fastify({ logger: false })
app.get('/constant', async () => ({ status: 'ok' }))
app.get('/row/:id', async (request) => {
  const { rows } = await pool.query('SELECT id, name, created_at FROM bench_rows WHERE id = $1', [Number((request.params as { id: string }).id)])
  return rows[0]
})

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
process.once('SIGTERM', () => {
  app.close().then(() => pool.end()).then(() => process.exit(0))
})
