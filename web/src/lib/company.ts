import { createContext, useContext } from 'react'

/** The company whose pages are open. Pages under /c/:companyId always have one. */
export const CompanyContext = createContext<string | null>(null)

export function useCompanyId(): string {
  const id = useContext(CompanyContext)
  if (!id) throw new Error('No company is open')
  return id
}

