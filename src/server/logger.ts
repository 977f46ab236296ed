import fs from 'node:fs'
import net from 'node:net'
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

/** The most log text held for a stdout that does not keep up; past it, lines are dropped. */
const MAX_PENDING_LOG_BYTES = 16 * 1024 * 1024

export interface BackgroundStdout extends pino.DestinationStream {
  /** Calls back once what was written has reached the pipe (at once when nothing waits). */
  flush(callback: () => void): void
}

/**
 * stdout written without ever blocking, when it is a pipe or a socket: Node.js writes to a pipe
 * synchronously, so a reader that stopped reading blocked the server in write() - it could not
 * even shut down. Here the pipe is written through a non-blocking socket, at most 16 MiB held
 * (past that, lines are dropped). Undefined for a terminal or a file, which keep the usual writes.
 */
export function backgroundStdout(): BackgroundStdout | undefined {
  let stat: fs.Stats
  try {
    stat = fs.fstatSync(1)
  } catch {
    return undefined
  }
  if (!stat.isFIFO() && !stat.isSocket()) return undefined
  const socket = new net.Socket({ fd: 1, readable: false, writable: true })
  socket.on('error', () => {}) // a reader gone: the lines have nowhere to go
  return {
    write(line: string) {
      if (socket.writableLength < MAX_PENDING_LOG_BYTES) socket.write(line)
    },
    flush(callback: () => void) {
      if (socket.writableLength === 0 || socket.destroyed) callback()
      else socket.once('drain', callback)
    },
  }
}
