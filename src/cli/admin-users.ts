import type { AdminCommand } from './admin.ts'

export const userCommands: Record<string, AdminCommand> = {}
