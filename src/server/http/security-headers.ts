import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet, { type HelmetOptions } from 'helmet'
import type { Config } from '../config.ts'

/** The identity provider's sign-in button: its script, its styles, its frame and its calls. */
const IDP = 'https://accounts.google.com/gsi/'

/**
 * Security headers of every answer (helmet): the web app's Content-Security-Policy -
 * its own scripts only (and the identity provider's button), no framing by any other page
 * (`frame-ancestors 'none'`), no plugins, forms and base URL to this origin - with nosniff, a
 * same-origin referrer policy and the rest of helmet's defaults. The live event stream may be
 * opened against another origin of the API (ALLOWED_ORIGINS), so those may be connected to.
 */
function helmetOptions(config: Pick<Config, 'allowedOrigins'>): HelmetOptions {
  const origins = (config.allowedOrigins ?? []).filter((o) => /^https?:\/\//.test(o))
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", IDP],
        // The identity provider's button injects its styles; React's style props are not inline markup.
        styleSrc: ["'self'", "'unsafe-inline'", IDP],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", IDP, ...origins],
        frameSrc: [IDP],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'same-origin' },
    // The sign-in button's popup talks back to this page.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    // Assets and answers may be read by the origins CORS allows.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  }
}

/**
 * The headers helmet sets with these options, worked out once: none of them depends on the
 * request, and building them per answer (as @fastify/helmet does, a new helmet for every request)
 * cost about 4% of the server's CPU on a create.
 */
export function securityHeaders(config: Pick<Config, 'allowedOrigins'>): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: string | number) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  }
  let failed: unknown
  helmet(helmetOptions(config))({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => void (failed = error))
  if (failed) throw failed
  return headers
}
