// A real SMTP server for the tests: accepts one user's sign-in and keeps every message.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  from: string
  to: string[]
  user: string | undefined
  secure: boolean
  /** The message source with quoted-printable soft breaks and escapes undone. */
  text: string
}

export interface SmtpSink {
  port: number
  messages: ReceivedMail[]
  /**
   * The next message to `to` (already received or still to come), with `subject` only one whose
   * subject matches (a new account also gets its address-verification mail).
   */
  mailTo(to: string, timeoutMs?: number, subject?: RegExp): Promise<ReceivedMail>
  close(): Promise<void>
}

/** The Subject header of a message's source. */
export function subjectOf(text: string): string {
  return /^Subject: (.*)$/m.exec(text)?.[1] ?? ''
}

function decodeQuotedPrintable(source: string): string {
  return source.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
}

export async function startSmtpSink(options: { user: string; password: string; secure?: boolean }): Promise<SmtpSink> {
  const messages: ReceivedMail[] = []
  const waiting: (() => void)[] = []
  const server = new SMTPServer({
    secure: options.secure ?? false,
    // Plain connection for the non-TLS case: no STARTTLS upgrade, sign-in allowed without TLS.
    disabledCommands: options.secure ? [] : ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) return callback(null, { user: auth.username })
      return callback(new Error('Invalid username or password'))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        messages.push({
          from: (session.envelope.mailFrom as any)?.address ?? '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          secure: Boolean(session.secure),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
        })
        for (const wake of waiting.splice(0)) wake()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port

  return {
    port,
    messages,
    async mailTo(to, timeoutMs = 10_000, subject) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = messages.find((m) => m.to.includes(to) && (!subject || subject.test(subjectOf(m.text))))
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          waiting.push(resolve)
          setTimeout(resolve, 200)
        })
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
