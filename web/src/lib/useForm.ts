// Form state for the many small forms: field values, a submit that tracks pending and error.
import { type FormEvent, useState } from 'react'

export function useForm<T extends Record<string, string | boolean | string[]>>(initial: T) {
  const [values, setValues] = useState<T>(initial)
  const bind = (name: keyof T & string) => ({
    name,
    value: values[name] as string,
    onChange: (event: { target: { value: string } }) => setValues((v) => ({ ...v, [name]: event.target.value })),
  })
  const check = (name: keyof T & string) => ({
    name,
    checked: values[name] as boolean,
    onChange: (event: { target: { checked: boolean } }) => setValues((v) => ({ ...v, [name]: event.target.checked })),
  })
  return { values, setValues, bind, check, reset: () => setValues(initial) }
}

/** Wraps an async submit: prevents the page reload, records pending state and the error. */
export function useSubmit(action: () => Promise<unknown>) {
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(null)
  async function onSubmit(event?: FormEvent) {
    event?.preventDefault()
    setPending(true)
    setError(null)
    try {
      await action()
    } catch (caught) {
      setError(caught)
    } finally {
      setPending(false)
    }
  }
  return { onSubmit, pending, error, setError }
}
