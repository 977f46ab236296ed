import { type AdminCommand, AdminUsageError } from './admin-command.ts'
import { ask } from './client/prompt.ts'
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

/** Commands that take something away from someone: they ask on a terminal, else need --yes. */
const DESTRUCTIVE = new Set(['users deactivate', 'members remove'])

export async function runAdmin(args: string[], out = (l: string) => console.log(l), err = (l: string) => console.error(l)): Promise<number> {
  const yes = args.includes('--yes') || args.includes('-y')
  const [group, action, ...rest] = args.filter((a) => a !== '--yes' && a !== '-y')
  const load = group ? GROUPS[group] : undefined
  if (!load) {
    err('Usage: shopfloor admin users deactivate|activate EMAIL [--yes]')
    err('       shopfloor admin members add|remove|role COMPANY_ID EMAIL [owner|admin|member] [--yes]')
    err('deactivate and remove ask on a terminal; elsewhere they need --yes.')
    return 2
  }
  const commands = await load()
  const command = action ? commands[action] : undefined
  if (!command) {
    err(`Unknown command: admin ${group} ${action ?? ''}. Known: ${Object.keys(commands).join(', ')}`)
    return 2
  }
  if (DESTRUCTIVE.has(`${group} ${action}`) && !yes) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) {
      err(`USAGE_ERROR: "shopfloor admin ${group} ${action}" needs --yes when it cannot ask (standard input is not a terminal)`)
      return 2
    }
    if (!/^(y|yes)$/i.test(await ask(`${action === 'remove' ? 'Remove' : 'Deactivate'} ${rest.join(' ')}? [y/N] `))) {
      err('Nothing done.')
      return 1
    }
  }
  const db = await openDatabase(loadConfig())
  try {
    await migrate(db)
    return await command(db, rest, out)
  } catch (e: any) {
    err(`shopfloor admin: ${e.message}`)
    return e instanceof AdminUsageError ? 2 : 1
  } finally {
    await db.close()
  }
}
