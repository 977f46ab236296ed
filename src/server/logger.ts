import pino, { type Logger } from 'pino'
import type { Config } from './config.ts'

/**
 * JSON lines in production (or when not attached to a terminal), readable lines in a terminal.
 * Request URLs are logged without their query string in production: links such as
 * /reset-password?token=... carry secrets. Headers are never logged.
 */
export function createLogger(config: Pick<Config, 'production' | 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const pretty = !config.production && process.stdout.isTTY && !destination
  return pino(
    {
      level: config.logLevel,
      serializers: {
        req: (req: any) => ({
          method: req.method,
          url: config.production ? String(req.url).split('?')[0] : req.url,
          remoteAddress: req.ip,
        }),
        res: (res: any) => ({ statusCode: res.statusCode }),
      },
      redact: { paths: ['password', '*.password', 'token', '*.token', 'access_token', 'refresh_token', 'key'], censor: '[redacted]' },
      ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
    },
    destination,
  )
}
