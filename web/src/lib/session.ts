// Whether someone is signed in, as React state, and signing out.
import type { QueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { api, isSignedIn, onSessionChange } from './api.ts'
import { navigate } from './router.tsx'

export function useSignedIn(): boolean {
  return useSyncExternalStore(onSessionChange, isSignedIn)
}

/** Ends this browser's session on the server, then forgets it here whatever the answer. */
export async function signOut(queryClient: QueryClient): Promise<void> {
  try {
    await api.auth.logout()
  } catch {
    api.useCredentials(null)
  }
  queryClient.clear()
  navigate('/sign-in', { replace: true })
}

const LAST_COMPANY = 'shopfloor.company'
export const rememberCompany = (id: string) => localStorage.setItem(LAST_COMPANY, id)
export const lastCompany = () => localStorage.getItem(LAST_COMPANY)
