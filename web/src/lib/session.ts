// Whether someone is signed in, as React state, and signing out.
import type { QueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { api, isSignedIn, onSessionChange } from './api.ts'

export function useSignedIn(): boolean {
  return useSyncExternalStore(onSessionChange, isSignedIn)
}

/**
 * Starts a session with `start` (sign-in, sign-up). The cache is emptied
 * BEFORE the session starts: the moment the tokens are stored the signed-in pages mount and
 * fetch; clearing after that would cancel those fetches for good (a page left on "Loading…").
 */
export async function signIn(queryClient: QueryClient, start: () => Promise<unknown>): Promise<void> {
  queryClient.clear()
  await start()
}

/** Ends this browser's session on the server, then forgets it here whatever the answer. */
export async function signOut(queryClient: QueryClient): Promise<void> {
  try {
    await api.auth.logout()
  } catch {
    api.useCredentials(null)
  }
  queryClient.clear()
}

const LAST_COMPANY = 'shopfloor.company'
export const rememberCompany = (id: string) => localStorage.setItem(LAST_COMPANY, id)
export const lastCompany = () => localStorage.getItem(LAST_COMPANY)
