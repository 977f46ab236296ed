import type { FastifyHelmetOptions } from '@fastify/helmet'
import type { Config } from '../config.ts'

/** The identity provider's sign-in button: its script, its styles, its frame and its calls. */
const IDP = 'https://accounts.google.com/gsi/'

/**
 * Security headers of every answer (@fastify/helmet): the web app's Content-Security-Policy -
 * its own scripts only (and the identity provider's button), no framing by any other page
 * (`frame-ancestors 'none'`), no plugins, forms and base URL to this origin - with nosniff, a
 * same-origin referrer policy and the rest of helmet's defaults. The live event stream may be
 * opened against another origin of the API (ALLOWED_ORIGINS), so those may be connected to.
 */
export function securityHeaders(config: Pick<Config, 'allowedOrigins'>): FastifyHelmetOptions {
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
