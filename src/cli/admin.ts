import type { AdminCommand } from './admin-command.ts'
import { loadConfig } from '../server/config.ts'
import { migrate } from '../server/db/migrate.ts'
import { openDatabase } from '../server/db/open.ts'

// Operator commands that act on the database directly (the API has no endpoints for them).
// They use the same DATABASE_URL / DATA_DIR as the server. With the embedded database the
// server must be stopped first: the folder lock allows one process at a time.

/** Subcommands by group; each group lives in its own file and registers here. */
const GROUPS: Record<string, () => Promise<Record<string, AdminCommand>>> = {
  users: async () => (await import('./admin-users.ts')).userCommands,
  members: async () => (await import('./admin-members.ts')).memberCommands,
}

export async function runAdmin(args: string[], out = (l: string) => console.log(l), err = (l: string) => console.error(l)): Promise<number> {
  const [group, action, ...rest] = args
  const load = group ? GROUPS[group] : undefined
  if (!load) {
    err('Usage: shopfloor admin users deactivate|activate EMAIL')
    err('       shopfloor admin members add|remove|role COMPANY_ID EMAIL [owner|admin|member]')
    return 2
  }
  const commands = await load()
  const command = action ? commands[action] : undefined
  if (!command) {
    err(`Unknown command: admin ${group} ${action ?? ''}. Known: ${Object.keys(commands).join(', ')}`)
    return 2
  }
  const db = await openDatabase(loadConfig())
  try {
    await migrate(db)
    return await command(db, rest, out)
  } catch (e: any) {
    err(`shopfloor admin: ${e.message}`)
    return 1
  } finally {
    await db.close()
  }
}
