import type { Logger } from 'pino'
import type { SmtpConfig } from '../config.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
}

export interface Mailer {
  /** Sends one message; resolves once the SMTP server accepted it (or it was only logged). */
  send(message: MailMessage): Promise<void>
}

/** Time allowed to open the SMTP connection. */
export const SMTP_CONNECTION_TIMEOUT_MS = 15_000
/**
 * Time allowed for the server's greeting, and for any answer once connected. nodemailer's
 * defaults (30 s and 10 minutes) let a server that accepts the connection and then says
 * nothing hold a message, unreported, for ten minutes.
 */
export const SMTP_GREETING_TIMEOUT_MS = 10_000
export const SMTP_SOCKET_TIMEOUT_MS = 30_000
/** Pauses before the second and third attempts of a message that could not be sent. */
export const SMTP_RETRY_DELAYS_MS = [10_000, 60_000]

/** Email goes out only when host, user and password are all set. */
export function smtpConfigured(smtp: SmtpConfig): boolean {
  return Boolean(smtp.host && smtp.user && smtp.password)
}

/** The options nodemailer gets: implicit TLS when `SMTP_SECURE=true`, STARTTLS when offered otherwise. */
export function transportOptions(smtp: SmtpConfig) {
  return {
    host: smtp.host!,
    port: smtp.port,
    secure: smtp.secure,
    auth: { user: smtp.user!, pass: smtp.password! },
    connectionTimeout: SMTP_CONNECTION_TIMEOUT_MS,
    greetingTimeout: SMTP_GREETING_TIMEOUT_MS,
    socketTimeout: SMTP_SOCKET_TIMEOUT_MS,
  }
}

/** What a test may shorten. */
export interface MailerTiming {
  retryDelaysMs?: number[]
  greetingTimeoutMs?: number
}

/**
 * Email through SMTP. Without full SMTP settings nothing is sent: outside production the
 * message (password-reset link included) is logged so a developer can follow it; in production
 * only a warning is logged, because the message carries a secret.
 */
export function createMailer(smtp: SmtpConfig, production: boolean, log: Logger, timing: MailerTiming = {}): Mailer {
  if (!smtpConfigured(smtp)) {
    return {
      async send(message) {
        if (production) log.warn({ to: message.to }, 'email not sent: SMTP is not configured')
        else log.info({ mail: message }, 'email not sent (SMTP is not configured); message follows')
      },
    }
  }
  const options = transportOptions(smtp)
  if (timing.greetingTimeoutMs) Object.assign(options, { greetingTimeout: timing.greetingTimeoutMs, socketTimeout: timing.greetingTimeoutMs })
  // nodemailer is loaded only where mail is configured (it holds some 15 MB).
  const transport = import('nodemailer').then((module) => module.default.createTransport(options))
  transport.catch(() => {}) // a failure to load is reported by the send that awaits it
  // The sender is SMTP_FROM, else the SMTP user when it is an address (a server refuses a
  // sender that is not one).
  const from = smtp.from ?? (smtp.user!.includes('@') ? smtp.user! : `shopfloor@${smtp.host}`)
  const delays = timing.retryDelaysMs ?? SMTP_RETRY_DELAYS_MS
  return {
    /**
     * Tries the message up to 1 + delays.length times. Every failed attempt is logged as an
     * error with the server's reason and the recipient, never the message (it may carry a
     * secret such as a reset link); the last one also rejects.
     */
    async send(message) {
      for (let attempt = 1; ; attempt++) {
        try {
          await (await transport).sendMail({ from, ...message })
          log.info({ to: message.to, subject: message.subject, attempt }, 'email sent')
          return
        } catch (err: any) {
          const delay = delays[attempt - 1]
          const reason = { message: String(err?.message ?? err), code: err?.code, response_code: err?.responseCode }
          log.error({ err: reason, to: message.to, attempt, retry_in_ms: delay ?? null },
            delay === undefined ? 'email could not be sent; giving up' : 'email could not be sent; retrying')
          if (delay === undefined) throw err
          await new Promise((r) => setTimeout(r, delay))
        }
      }
    },
  }
}
