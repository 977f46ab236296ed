import { messages, parse, type PGlite, protocol } from '@electric-sql/pglite'

/**
 * Prepared statements of the embedded database, as the PostgreSQL driver keeps them per
 * connection. PGlite's query() sends Parse, Describe, Bind, Describe, Execute and Sync as six
 * calls into WebAssembly and parses and plans the statement each time: 976 µs for finding a
 * task by number against 321 µs for the same statement prepared. Here a statement is parsed
 * once under a name (Parse, Describe, Sync in one call), and each later use is one call: Bind,
 * Execute, Sync. Rows are parsed by PGlite's own parseResults with the RowDescription kept
 * from the first use, so they are the same values query() gives.
 *
 * Callers hold PGlite's query mutex around run(): PGlite is one session, and the protocol
 * messages of two statements must not interleave.
 */

interface Statement {
  name: string
  /** Parameter types PostgreSQL inferred: the values are serialised by them, as query() does. */
  paramTypes: number[]
  /** The result's columns; null for a statement that returns no rows (NoData). */
  description: messages.RowDescriptionMessage | null
}

export interface StatementResult {
  rows: any[]
  affectedRows?: number
}

/**
 * Some statements are built at run time (lists with their filters, a limit written into the
 * text), so the number of texts is open-ended: the least recently used statement is closed
 * beyond this many. Each prepared statement keeps its parse tree and plans in PostgreSQL's
 * memory, about 35 KB for the service's statements (250 hold about 9 MB), and WebAssembly
 * memory once grown is never given back to the system.
 */
export const STATEMENT_LIMIT = 250

/**
 * A statement of the cache that can be prepared again and run: its result type changed under
 * it (a column added to a table it reads with `*`), or the database no longer has it
 * (DEALLOCATE, DISCARD). Any other error is the statement's own and is thrown as it is.
 */
function stale(err: any): boolean {
  if (err?.code === '26000') return true // invalid_sql_statement_name
  // feature_not_supported is also other errors': this one ("cached plan must not change result
  // type") is known by the PostgreSQL function that raises it, not by its text.
  return err?.code === '0A000' && err.routine === 'RevalidateCachedQuery'
}

export class Statements {
  readonly #db: PGlite
  readonly #limit: number
  /** SQL text -> statement, least recently used first (a Map keeps insertion order). */
  readonly #cache = new Map<string, Statement>()
  /** Close messages of statements dropped from the cache, sent with the next Parse. */
  #closes: Uint8Array[] = []
  #counter = 0

  constructor(db: PGlite, limit = STATEMENT_LIMIT) {
    this.#db = db
    this.#limit = limit
  }

  /**
   * Runs one statement with parameters. Outside a transaction a statement found stale is
   * prepared again and run once more; inside one, the error has already aborted the
   * transaction, so it is thrown (the statement is prepared anew on its next use).
   */
  async run(sql: string, params: unknown[], inTransaction: boolean): Promise<StatementResult> {
    try {
      return await this.#execute(sql, await this.#statement(sql), params)
    } catch (err: any) {
      if (!stale(err) || !this.#cache.has(sql)) throw err
      this.#forget(sql)
      if (inTransaction) throw err
      return await this.#execute(sql, await this.#statement(sql), params)
    }
  }

  async #statement(sql: string): Promise<Statement> {
    const cached = this.#cache.get(sql)
    if (cached) {
      // Most recently used goes last.
      this.#cache.delete(sql)
      this.#cache.set(sql, cached)
      return cached
    }
    while (this.#cache.size >= this.#limit) this.#forget(this.#cache.keys().next().value!)
    // Closing the dropped ones goes in the same call; closing a name PostgreSQL no longer has is no error.
    const closes = this.#closes
    this.#closes = []
    const name = `shopfloor_${++this.#counter}`
    const replies = await this.#call(
      sql,
      undefined,
      ...closes,
      protocol.serialize.parse({ name, text: sql }),
      protocol.serialize.describe({ type: 'S', name }),
      protocol.serialize.sync(),
    )
    let paramTypes: number[] = []
    let description: messages.RowDescriptionMessage | null = null
    for (const reply of replies) {
      if (reply.name === 'parameterDescription') paramTypes = (reply as messages.ParameterDescriptionMessage).dataTypeIDs
      else if (reply.name === 'rowDescription') description = reply as messages.RowDescriptionMessage
    }
    const statement = { name, paramTypes, description }
    this.#cache.set(sql, statement)
    return statement
  }

  #forget(sql: string) {
    const statement = this.#cache.get(sql)!
    this.#cache.delete(sql)
    this.#closes.push(protocol.serialize.close({ type: 'S', name: statement.name }))
  }

  async #execute(sql: string, statement: Statement, params: unknown[]): Promise<StatementResult> {
    const serializers = this.#db.serializers
    // As query() serialises them: by the parameter's type, else the value's own text.
    const values = params.map((value: any, i) => {
      if (value === null || value === undefined) return null
      const serialize = serializers[statement.paramTypes[i]]
      return serialize ? serialize(value) : value.toString()
    })
    const replies = await this.#call(
      sql,
      params,
      protocol.serialize.bind({ statement: statement.name, values }),
      protocol.serialize.execute(),
      protocol.serialize.sync(),
    )
    // Execute sends no RowDescription; the one of Describe stands where query()'s would be.
    const all = statement.description ? [statement.description, ...replies] : replies
    return parse.parseResults(all, this.#db.parsers)[0]
  }

  /**
   * One call into the database with the messages joined. PostgreSQL skips everything after an
   * error up to the Sync, which ends every call, so a failed statement leaves the session ready
   * for the next; PGlite then throws the error (a DatabaseError) with the query and parameters
   * attached, as query() does.
   */
  async #call(sql: string, params: unknown[] | undefined, ...parts: Uint8Array[]): Promise<messages.BackendMessage[]> {
    let length = 0
    for (const part of parts) length += part.length
    const message = new Uint8Array(length)
    let offset = 0
    for (const part of parts) {
      message.set(part, offset)
      offset += part.length
    }
    try {
      return await this.#db.execProtocolStream(message, { syncToFs: false })
    } catch (err: any) {
      if (err instanceof messages.DatabaseError) Object.assign(err, { query: sql, params, queryOptions: undefined })
      throw err
    }
  }
}
