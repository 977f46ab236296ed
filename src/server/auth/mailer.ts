import nodemailer from 'nodemailer'
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

/** Seconds allowed to open the SMTP connection. */
export const SMTP_CONNECTION_TIMEOUT_MS = 15_000

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
  }
}

/**
 * Email through SMTP. Without full SMTP settings nothing is sent: outside production the
 * message (password-reset link included) is logged so a developer can follow it; in production
 * only a warning is logged, because the message carries a secret.
 */
export function createMailer(smtp: SmtpConfig, production: boolean, log: Logger): Mailer {
  if (!smtpConfigured(smtp)) {
    return {
      async send(message) {
        if (production) log.warn({ to: message.to }, 'email not sent: SMTP is not configured')
        else log.info({ mail: message }, 'email not sent (SMTP is not configured); message follows')
      },
    }
  }
  const transport = nodemailer.createTransport(transportOptions(smtp))
  const from = smtp.from ?? smtp.user!
  return {
    async send(message) {
      await transport.sendMail({ from, ...message })
    },
  }
}
