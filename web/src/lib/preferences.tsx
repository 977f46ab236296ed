// The signed-in user's preferences: read from GET /api/me, applied to the page (theme, accent,
// density as data attributes on <html>), turned into a Formatter, and updated optimistically.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react'
import type { Preferences } from '#src/client/types.ts'
import { api } from './api.ts'
import { type Formatter, makeFormatter } from './format.ts'
import { savePreferencesOptions } from './save-preferences.ts'

const FormatContext = createContext<Formatter>(makeFormatter())
export const useFormat = () => useContext(FormatContext)

function useSystemDark(): boolean {
  const query = window.matchMedia('(prefers-color-scheme: dark)')
  const [dark, setDark] = useState(query.matches)
  useEffect(() => {
    const change = () => setDark(query.matches)
    query.addEventListener('change', change)
    return () => query.removeEventListener('change', change)
  }, [query])
  return dark
}

/** Applies the preferences to the document and provides the matching Formatter. */
export function PreferencesScope({ preferences, children }: { preferences: Preferences; children: ReactNode }) {
  const systemDark = useSystemDark()
  const theme = preferences.theme === 'system' || !preferences.theme ? (systemDark ? 'dark' : 'light') : preferences.theme
  useEffect(() => {
    const root = document.documentElement
    root.dataset.theme = theme
    root.dataset.accent = preferences.accent ?? 'royal'
    root.dataset.density = preferences.density ?? 'comfortable'
    if (preferences.locale) root.lang = preferences.locale
  }, [theme, preferences.accent, preferences.density, preferences.locale])
  const format = useMemo(() => makeFormatter(preferences), [preferences])
  return <FormatContext.Provider value={format}>{children}</FormatContext.Provider>
}

/** Saves a preferences patch; the page changes at once and follows the server's answer. */
export function useSavePreferences() {
  const client = useQueryClient()
  return useMutation(savePreferencesOptions(client, (patch) => api.me.updatePreferences(patch)))
}
