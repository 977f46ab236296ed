// One small database interface with two implementations: PostgreSQL through a `pg` Pool when
// DATABASE_URL is set, the embedded PGlite database otherwise. Both speak the same SQL and run
// the same migrations. Services take a Queryable so they work inside or outside a transaction.

export interface Queryable {
  /** Runs one statement; `rowCount` is the number of rows affected or returned. */
  query<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number }>
  /** First row, or null when the statement returned none. */
  one<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T | null>
  many<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>
  /** Runs a script of several statements without parameters (migrations, test set-up). */
  exec(sql: string): Promise<void>
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite'
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>
  /**
   * LISTENs on a channel (from this process and every other on the same database). onSignal
   * runs after each notification, and also whenever notifications may have been missed: the
   * listening connection was lost or has just come back. Ends with close().
   */
  listen(channel: string, onSignal: () => void): Listener
  /** Connections of the pool (PostgreSQL only): open, idle, and requests waiting for one. */
  poolStats?(): { total: number; idle: number; waiting: number }
  close(): Promise<void>
}

export interface Listener {
  /** True while notifications are being received. */
  readonly live: boolean
}

/** Builds one/many from a query function, shared by both implementations. */
export function queryable(query: Queryable['query'], exec: Queryable['exec']): Queryable {
  return {
    query,
    exec,
    async one(sql, params) {
      const { rows } = await query(sql, params)
      return (rows[0] as any) ?? null
    },
    async many(sql, params) {
      return (await query(sql, params)).rows as any
    },
  }
}
