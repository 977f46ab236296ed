// The pieces every form is made of: a labelled field with an optional hint, and a dialog that is
// one form (its error in words, a submit button that shows it is working, Cancel).
import type { ReactNode } from 'react'
import type { useSubmit } from '../lib/useForm.ts'
import { Dialog } from './Dialog.tsx'
import { ErrorText } from './ErrorText.tsx'

/** A label wrapping its control, so the control is named by the label text (hint included). */
export function Field({ label, hint, className, children }: { label: ReactNode; hint?: ReactNode; className?: string; children: ReactNode }) {
  return (
    <label className={`field${className ? ` ${className}` : ''}`}>
      {label}
      {hint && <> <span className="hint">({hint})</span></>}
      {children}
    </label>
  )
}

interface FormDialogProps {
  title: string
  submit: ReturnType<typeof useSubmit>
  submitLabel: string
  onClose: () => void
  children: ReactNode
}

/** A modal dialog holding one form: the error, the fields, then the submit and Cancel buttons. */
export function FormDialog({ title, submit, submitLabel, onClose, children }: FormDialogProps) {
  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit.onSubmit}>
        <ErrorText error={submit.error} />
        {children}
        <div className="actions">
          <button className="primary" type="submit" disabled={submit.pending}>{submitLabel}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  )
}
