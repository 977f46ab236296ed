// Tool calls in the transcript: one `tool` entry per call, its first line the call in a form
// people read ("Bash: npm test"), the following lines its output, clipped.

const OUTPUT_KEEP_CHARS = 1000
const CALL_KEEP_CHARS = 300
/** Input fields that say the most about a call, in order. */
const KEY_FIELDS = ['command', 'cmd', 'file_path', 'filePath', 'path', 'pattern', 'url', 'query', 'title', 'body', 'description', 'prompt']

export function toolCall(name: string, input: unknown): string {
  let detail = ''
  if (typeof input === 'string') detail = input
  else if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>
    const key = KEY_FIELDS.find((k) => typeof record[k] === 'string' || Array.isArray(record[k]))
    if (key) detail = Array.isArray(record[key]) ? (record[key] as unknown[]).join(' ') : String(record[key])
    else if (Object.keys(record).length) detail = JSON.stringify(record)
  }
  const line = `${name}${detail ? `: ${detail.replace(/\s+/g, ' ').trim()}` : ''}`
  return line.length > CALL_KEEP_CHARS ? `${line.slice(0, CALL_KEEP_CHARS - 3)}...` : line
}

/** The tool entry: the call's line, then its output clipped (failed calls say so). */
export function toolEntry(call: string, output: unknown, failed = false): string {
  const text = outputText(output).trim()
  if (!text) return `${call}${failed ? '\n(failed)' : ''}\n`
  const clipped = text.length > OUTPUT_KEEP_CHARS
    ? `${text.slice(0, OUTPUT_KEEP_CHARS)}\n[... ${(text.length - OUTPUT_KEEP_CHARS).toLocaleString('en-US')} more characters]`
    : text
  return `${call}\n${failed ? '(failed) ' : ''}${clipped}\n`
}

function outputText(output: unknown): string {
  if (output === undefined || output === null) return ''
  if (typeof output === 'string') return output
  // Claude Code: a list of content blocks.
  if (Array.isArray(output)) return output.map((b) => (typeof b === 'string' ? b : typeof b?.text === 'string' ? b.text : JSON.stringify(b))).join('\n')
  return JSON.stringify(output)
}
