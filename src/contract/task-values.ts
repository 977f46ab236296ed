// A task's statuses and priorities as plain lists, in a file of their own without schemas, so
// that clients (the command line, the MCP tools, the web app) take the lists and not the schema
// library: loading TypeBox's modules was most of a CLI command's start.

export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled'] as const
export const TASK_PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const
/** A task title's length: 1 to this many characters (SPEC.md limits). */
export const TASK_TITLE_MAX = 300
