// The per-user config file: $XDG_CONFIG_HOME/shopfloor/config.json, else
// ~/.config/shopfloor/config.json, mode 0600 because it holds session tokens.
// Sessions and the current company are kept per server address, so tokens issued by one
// server are never sent to another.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { CliError } from './errors.ts'

export interface ServerProfile {
  access_token?: string
  refresh_token?: string | null
  email?: string
  company_id?: string
  company_name?: string
}

export interface ConfigFile {
  /** The server used when neither --url nor SHOPFLOOR_URL says otherwise. */
  url?: string
  servers?: Record<string, ServerProfile>
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config')
  return join(base, 'shopfloor', 'config.json')
}

export class ConfigStore {
  private data: ConfigFile

  constructor(readonly path: string) {
    this.data = existsSync(path) ? parse(path) : {}
  }

  get url(): string | undefined {
    return this.data.url
  }

  profile(url: string): ServerProfile {
    return this.data.servers?.[url] ?? {}
  }

  /** Merges `changes` into the server's profile (undefined removes a field) and saves. */
  update(url: string, changes: Partial<ServerProfile>, options: { makeDefault?: boolean } = {}): void {
    const merged: ServerProfile = { ...this.profile(url), ...changes }
    for (const key of Object.keys(merged) as (keyof ServerProfile)[]) if (merged[key] === undefined) delete merged[key]
    this.data = {
      ...this.data,
      ...(options.makeDefault ? { url } : {}),
      servers: { ...this.data.servers, [url]: merged },
    }
    this.save()
  }

  /** Written to a temporary file first and renamed, so a crash never leaves half a file. */
  private save(): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 })
    const temporary = `${this.path}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(this.data, null, 2)}\n`, { mode: 0o600 })
    chmodSync(temporary, 0o600)
    renameSync(temporary, this.path)
  }
}

function parse(path: string): ConfigFile {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8'))
    return data && typeof data === 'object' ? data : {}
  } catch (error) {
    throw new CliError('CONFIG_ERROR', `Cannot read ${path}: ${(error as Error).message}`)
  }
}
