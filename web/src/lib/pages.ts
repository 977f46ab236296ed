// The company's pages by name, for the command palette and its shortcuts help.

export type PagePath = '' | 'inbox' | 'tasks' | 'agents' | 'org' | 'runs' | 'approvals' | 'goals' | 'projects' | 'routines' | 'costs' | 'activity' | 'settings' | 'runners' | 'documents'

/** Pages by name, with the letter that follows `g` to open them. */
export const PAGES: { path: PagePath; label: string; key?: string }[] = [
  { path: '', label: 'Dashboard', key: 'd' },
  { path: 'inbox', label: 'Inbox', key: 'i' },
  { path: 'tasks', label: 'Tasks', key: 't' },
  { path: 'agents', label: 'Agents', key: 'a' },
  { path: 'org', label: 'Org chart', key: 'o' },
  { path: 'runs', label: 'Runs', key: 'r' },
  { path: 'approvals', label: 'Approvals', key: 'p' },
  { path: 'goals', label: 'Goals' },
  { path: 'projects', label: 'Projects' },
  { path: 'documents', label: 'Documents' },
  { path: 'routines', label: 'Routines' },
  { path: 'runners', label: 'Runners', key: 'n' },
  { path: 'costs', label: 'Costs', key: 'c' },
  { path: 'activity', label: 'Activity' },
  { path: 'settings', label: 'Settings', key: 's' },
]
