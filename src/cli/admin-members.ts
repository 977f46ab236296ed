import type { AdminCommand } from './admin.ts'

export const memberCommands: Record<string, AdminCommand> = {}
