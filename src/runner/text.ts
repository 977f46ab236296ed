// Size limits of what the runner reports (SPEC.md "Runner reference values").
export const SUMMARY_MAX_CHARS = 2000
export const ERROR_MAX_CHARS = 2000
export const COMMENT_MAX_CHARS = 8000
export const STDERR_KEEP_CHARS = 4000

/** The first `max` characters, marked when something was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  const marker = ' [...]'
  return text.slice(0, max - marker.length) + marker
}

/** Keeps only the last `max` characters of a growing text (stderr). */
export class Tail {
  private text = ''
  constructor(private readonly max: number) {}

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.max)
  }

  toString(): string {
    return this.text
  }
}
