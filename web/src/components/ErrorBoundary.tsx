import { Component, type ReactNode } from 'react'
import { ErrorText } from './ErrorText.tsx'

/** Keeps a failing page from blanking the whole app: the error in words and a way out. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null }

  static getDerivedStateFromError(error: unknown) {
    return { error }
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <>
        <ErrorText error={this.state.error} />
        <button onClick={() => window.location.reload()}>Reload the page</button>
      </>
    )
  }
}
