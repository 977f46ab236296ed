import type { Db } from '../server/db/db.ts'

/** One operator subcommand (`shopfloor admin GROUP ACTION ...`): its exit code. */
export type AdminCommand = (db: Db, args: string[], out: (line: string) => void) => Promise<number>

/** A mistake in the command line: exit code 2, like every usage mistake of the executable. */
export class AdminUsageError extends Error {}
