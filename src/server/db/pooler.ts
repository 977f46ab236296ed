import pg from 'pg'

/** What to change when DATABASE_URL reaches PostgreSQL through a transaction-pooling proxy. */
export const TRANSACTION_POOLING_ADVICE =
  'DATABASE_URL goes through a connection pooler in transaction mode (PgBouncer pool_mode = transaction): two ' +
  "connections of this process shared one PostgreSQL session. Shopfloor keeps per-connection state that such a pooler " +
  'hands to other clients between transactions (prepared statements, LISTEN for credential and webhook changes, the ' +
  "migrations' advisory lock). Give Shopfloor's database pool_mode = session in pgbouncer.ini (or connect to " +
  'PostgreSQL directly), then restart. docs/deploy.md, "PgBouncer".'

/**
 * True when two connections opened at the same time share one server session (the same backend
 * process), which only a transaction (or statement) pooler does: the first connection's
 * statement ends its transaction, the pooler takes the server connection back and gives the
 * same one to the second. Directly, or through a pooler in session mode, each connection holds
 * a session of its own. PgBouncer hands out its most recently used server connection first, so
 * an idle pool gives the same one; a busy pool may not, and then this says false.
 */
export async function sharesSessions(url: string): Promise<boolean> {
  const settings = { connectionString: url, connectionTimeoutMillis: 5000 }
  const a = new pg.Client(settings)
  const b = new pg.Client(settings)
  // An unreachable server is the caller's to retry: errors propagate.
  a.on('error', () => {})
  b.on('error', () => {})
  try {
    await a.connect()
    await b.connect()
    const first = (await a.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    const second = (await b.query('SELECT pg_backend_pid() AS pid')).rows[0].pid
    return first === second
  } finally {
    await Promise.allSettled([a.end(), b.end()])
  }
}
