// The client commands run in this process (runClient with captured output) against the whole
// API listening on a real socket. Faster than a process per command, so the many commands
// beyond sign-in and tasks are covered here; the executable itself is covered by the other files.
import fs from 'node:fs'
import path from 'node:path'
import { ShopfloorClient } from '../../src/client/index.ts'
import { runClient } from '../../src/cli/client-main.ts'
import { createUser, type TestApp, testApp } from '../helpers.ts'
import { tempDir } from '../server-process.ts'

export interface Output {
  code: number
  stdout: string
  stderr: string
}

export interface Operator {
  client: ShopfloorClient
  companyId: string
  /** `shopfloor <args>` as this operator, in the current company. */
  run(...args: string[]): Promise<Output>
  /** run() with --json that must succeed; answers the parsed output. */
  json<T = any>(...args: string[]): Promise<T>
}

const homes: string[] = []

/** The API on a socket; close() also removes the operators' config folders. */
export async function listeningApp(): Promise<{ api: TestApp; url: string; close(): Promise<void> }> {
  const api = await testApp()
  const url = await api.app.listen({ host: '127.0.0.1', port: 0 })
  return {
    api,
    url,
    async close() {
      await api.close()
      for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true })
    },
  }
}

/** A user with a company, and a config file holding their access token and that company. */
export async function operator(api: TestApp, url: string, prefix: string): Promise<Operator> {
  const user = await createUser(api.ctx, `Operator ${prefix}`)
  const client = new ShopfloorClient({ baseUrl: url, credentials: { accessToken: user.token }, retry: false })
  const company = await client.companies.create({ name: `Company ${prefix}`, task_prefix: prefix })
  const home = tempDir('shopfloor-cli-home-')
  homes.push(home)
  const file = path.join(home, '.config', 'shopfloor', 'config.json')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ url, servers: { [url]: { access_token: user.token, company_id: company.id } } }))
  const run = async (...args: string[]): Promise<Output> => {
    let stdout = ''
    let stderr = ''
    const code = await runClient(args, { HOME: home }, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) })
    return { code, stdout, stderr }
  }
  return {
    client,
    companyId: company.id,
    run,
    async json(...args) {
      const out = await run(...args, '--json')
      if (out.code !== 0) throw new Error(`shopfloor ${args.join(' ')} exited ${out.code}: ${out.stderr}`)
      return JSON.parse(out.stdout)
    },
  }
}
