import type { ReactNode } from 'react'

/** The centred panel of the signed-out pages. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth">
      <div className="panel">
        <h1><span className="avatar" style={{ background: 'var(--accent)', borderRadius: 6 }} aria-hidden>S</span>{title}</h1>
        {children}
      </div>
    </main>
  )
}
