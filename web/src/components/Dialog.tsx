import { type ReactNode, useEffect, useRef } from 'react'

/** A modal dialog (native <dialog>: focus trap, Escape to close). Rendered only while open. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (dialog && !dialog.open) {
      dialog.showModal()
      // showModal focuses the first focusable element, the close button: the first field is more useful.
      dialog.querySelector<HTMLElement>('input:not([type=hidden]), textarea, select')?.focus()
    }
  }, [])
  return (
    // Escape closes through React at once. Left to the browser, the dialog's close event comes a
    // task later, and a key pressed in between (Ctrl-K to reopen the palette) would still find it open.
    <dialog ref={ref} onClose={onClose} onKeyDown={(event) => { if (event.key === 'Escape') { event.preventDefault(); onClose() } }} aria-label={title}>
      <div className="page-head" style={{ marginBottom: 12 }}>
        <h2 style={{ margin: 0 }}>{title}</h2>
        <button className="link" onClick={onClose} aria-label="Close">✕</button>
      </div>
      {children}
    </dialog>
  )
}
