// Sign-in through the identity provider (Google Identity Services): its script renders the
// button and hands back an ID token, which the API exchanges for a session.
import { useEffect, useRef, useState } from 'react'

interface GoogleAccounts {
  id: {
    initialize(options: { client_id: string; callback: (response: { credential: string }) => void }): void
    renderButton(element: HTMLElement, options: Record<string, string>): void
  }
}

const SCRIPT = 'https://accounts.google.com/gsi/client'

function loadScript(): Promise<GoogleAccounts> {
  const existing = (window as { google?: { accounts: GoogleAccounts } }).google
  if (existing) return Promise.resolve(existing.accounts)
  return new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = SCRIPT
    script.async = true
    script.onload = () => resolve((window as unknown as { google: { accounts: GoogleAccounts } }).google.accounts)
    script.onerror = () => reject(new Error('The identity provider could not be reached.'))
    document.head.append(script)
  })
}

export function IdpButton({ clientId, onCredential }: { clientId: string; onCredential: (credential: string) => void }) {
  const holder = useRef<HTMLDivElement>(null)
  const [failure, setFailure] = useState<string | null>(null)
  useEffect(() => {
    let cancelled = false
    loadScript().then(
      (accounts) => {
        if (cancelled || !holder.current) return
        accounts.id.initialize({ client_id: clientId, callback: (response) => onCredential(response.credential) })
        accounts.id.renderButton(holder.current, { theme: 'outline', size: 'large', text: 'signin_with' })
      },
      (error: Error) => setFailure(error.message),
    )
    return () => {
      cancelled = true
    }
  }, [clientId, onCredential])
  return (
    <div className="field">
      <div ref={holder} />
      {failure && <p className="error" role="alert">{failure}</p>}
    </div>
  )
}
