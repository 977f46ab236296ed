// Terminal input for `login`: a visible prompt for the email, a hidden one for the password,
// and reading a secret from standard input for scripts (--password-stdin).
import { createInterface } from 'node:readline/promises'
import { UsageError } from './errors.ts'

export async function ask(question: string): Promise<string> {
  requireTerminal()
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return (await rl.question(question)).trim()
  } finally {
    rl.close()
  }
}

/** Reads a line without echoing it. */
export async function askHidden(question: string): Promise<string> {
  requireTerminal()
  const stdin = process.stdin
  // Echo off before the prompt shows: a password typed as soon as the prompt appears must not
  // reach a terminal that still echoes (the terminal login test once caught it doing so).
  stdin.setRawMode(true)
  process.stderr.write(question)
  stdin.resume()
  stdin.setEncoding('utf8')
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = ''
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n') {
            stdin.off('data', onData)
            return resolve(typed)
          }
          if (char === '\u0003') {
            stdin.off('data', onData)
            return reject(new UsageError('Cancelled'))
          }
          if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1)
          else typed += char
        }
      }
      stdin.on('data', onData)
    })
  } finally {
    stdin.setRawMode(false)
    stdin.pause()
    process.stderr.write('\n')
  }
}

/** All of standard input without its final line break. */
export async function readStdin(): Promise<string> {
  let data = ''
  process.stdin.setEncoding('utf8')
  for await (const chunk of process.stdin) data += chunk
  return data.replace(/\r?\n$/, '')
}

function requireTerminal(): void {
  if (!process.stdin.isTTY) throw new UsageError('Not a terminal: pass --email and --password-stdin')
}
