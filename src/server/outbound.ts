import { lookup as dnsLookup } from 'node:dns/promises'
import type { LookupAddress, LookupOptions } from 'node:dns'
import net from 'node:net'
import { Agent, type Dispatcher, fetch as undiciFetch, type RequestInit, type Response } from 'undici'

// Requests the server or a runner makes to an address someone else chose (a webhook's URL, an
// http agent's URL) must not turn it into a way of reaching the machines next to it: loopback,
// private networks, link-local cloud metadata. The address is checked on the connection actually
// made (the connect lookup of the dispatcher below), so a name that answers a public address to
// a check and 127.0.0.1 a moment later (DNS rebinding) is refused on the second answer too.

const blocked = new net.BlockList()
for (const [address, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(address, prefix, 'ipv4')
for (const [address, prefix] of [
  // ::/96 holds ::, ::1 and the IPv4-compatible forms such as ::127.0.0.1; IPv4-mapped
  // addresses (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList itself.
  ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64],
  // Teredo and 6to4 carry an IPv4 address inside, which may be a private one.
  ['2001::', 32], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(address, prefix, 'ipv6')

/** True for a loopback, private, link-local, reserved or tunnelled address (IPv4 or IPv6 text). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address)
  if (family === 0) return true
  return blocked.check(address, family === 6 ? 'ipv6' : 'ipv4')
}

/** What a name resolves to; the system resolver unless a test stands one in. */
export type Resolver = (host: string) => Promise<LookupAddress[]>
export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true })

/** A connection refused because of where it would go; `message` says why. */
export class OutboundRefused extends Error {
  readonly code = 'OUTBOUND_REFUSED'
}

function refusal(host: string, address: string, hint: string): OutboundRefused {
  const name = host === address ? address : `${host} (${address})`
  return new OutboundRefused(`${name} is a loopback or private address, which is refused; ${hint}`)
}

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '')
}

export interface OutboundGuard {
  /** How the refusal tells the operator to allow such an address. */
  hint: string
  resolve?: Resolver
}

/**
 * A dispatcher whose every connection resolves its name through `resolve`, refuses when any
 * answer is private, and connects to the answer it checked (never a second lookup).
 */
function guardedDispatcher(guard: OutboundGuard): Dispatcher {
  const resolve = guard.resolve ?? systemResolver
  const lookup = (host: string, options: LookupOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(host).then(
      (answers) => {
        const bad = answers.find((a) => isPrivateAddress(a.address))
        if (bad) return callback(refusal(host, bad.address, guard.hint), '')
        const usable = options.family ? answers.filter((a) => a.family === options.family) : answers
        if (!usable.length) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), '')
        if (options.all) callback(null, usable)
        else callback(null, usable[0].address, usable[0].family)
      },
      (err) => callback(err, ''),
    )
  }
  return new Agent({ connect: { lookup: lookup as any } })
}

const dispatchers = new WeakMap<OutboundGuard, Dispatcher>()

/**
 * fetch for an address someone else chose. With a guard, an IP literal is checked here and a
 * name on the connection; without one (the operator allowed private targets) nothing is
 * checked. Redirects are never followed: the answer is the 3xx itself.
 * Rejects with OutboundRefused (directly or as the `cause` of fetch's TypeError).
 */
export async function outboundFetch(url: string, init: Omit<RequestInit, 'dispatcher' | 'redirect'>, guard: OutboundGuard | null): Promise<Response> {
  if (!guard) return undiciFetch(url, { ...init, redirect: 'manual' })
  const host = hostOf(new URL(url))
  if (net.isIP(host) && isPrivateAddress(host)) throw refusal(host, host, guard.hint)
  let dispatcher = dispatchers.get(guard)
  if (!dispatcher) dispatchers.set(guard, (dispatcher = guardedDispatcher(guard)))
  return undiciFetch(url, { ...init, redirect: 'manual', dispatcher })
}

/** The refusal behind a failed outboundFetch, if that is why it failed. */
export function refusedBecause(err: unknown): OutboundRefused | null {
  if (err instanceof OutboundRefused) return err
  const cause = (err as { cause?: unknown } | null)?.cause
  return cause instanceof OutboundRefused ? cause : null
}

/**
 * Null when `url` may be reached, else the reason: a check when a target is saved, so the person
 * saving it hears at once. The connection is checked again when it is made (outboundFetch).
 */
export async function targetProblem(url: string, guard: OutboundGuard | null): Promise<string | null> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'The URL is not valid'
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'The URL must use http or https'
  if (parsed.username || parsed.password) return 'The URL must not carry credentials'
  if (!guard) return null
  const host = hostOf(parsed)
  let addresses: string[]
  try {
    addresses = net.isIP(host) ? [host] : (await (guard.resolve ?? systemResolver)(host)).map((a) => a.address)
  } catch {
    return `The host "${host}" could not be resolved`
  }
  const bad = addresses.find(isPrivateAddress)
  return bad ? `The host "${host}" is a loopback or private address (${bad}); ${guard.hint}` : null
}

/**
 * True when `url` matches one of the operator's patterns, where `*` stands for any characters
 * (`http://127.0.0.1:8080/*`, `http://*.internal/*`); the whole URL must match, and a `*` in the
 * scheme and host part stays within the host (never matches `/`, `?`, `#` or `@`). A pattern
 * without a path matches the bare origin only (`http://host:1` is `http://host:1/`: add `/*`).
 */
export function urlAllowed(url: string, patterns: readonly string[]): boolean {
  // Compared in the form the connection reads it (`\\` as `/`, default port dropped, ...).
  let href: string
  try {
    href = new URL(url).href
  } catch {
    return false
  }
  const escape = (part: string) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  const glob = (part: string, any: string) => part.split('*').map(escape).join(any)
  return patterns.some((pattern) => {
    const path = pattern.indexOf('/', pattern.indexOf('://') + 3)
    const origin = path < 0 ? pattern : pattern.slice(0, path)
    const rest = path < 0 ? '' : pattern.slice(path)
    return new RegExp(`^${glob(origin, '[^/?#@]*')}${glob(rest, '.*')}$`, 'i').test(href)
  })
}
