import { createContext, useContext } from 'react'

/** The company whose pages are open. Pages under /c/:companyId always have one. */
export const CompanyContext = createContext<string | null>(null)

export function useCompanyId(): string {
  const id = useContext(CompanyContext)
  if (!id) throw new Error('No company is open')
  return id
}

/** A task prefix proposed from the name: its first word's letters and digits, up to four, in capitals. */
export function prefixFor(name: string): string {
  const word = name.normalize('NFKD').toUpperCase().replace(/[^A-Z0-9 ]/g, '').trim().split(/\s+/)[0] ?? ''
  const letters = word.replace(/^[0-9]+/, '').slice(0, 4)
  return letters || 'SVC'
}
