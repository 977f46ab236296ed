import { lookup } from 'node:dns/promises'
import net from 'node:net'

// Webhook targets must be public: a subscription must not turn the API into a way of reaching
// the machines next to it (loopback, private networks, link-local cloud metadata). Checked at
// create and update, and again before every attempt since a name may resolve elsewhere later.
// WEBHOOKS_ALLOW_PRIVATE=true lifts the rule (a private deployment, tests).

const blocked = new net.BlockList()
for (const [address, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(address, prefix, 'ipv4')
for (const [address, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96],
] as const) blocked.addSubnet(address, prefix, 'ipv6')

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1], 'ipv4')
  return blocked.check(address, net.isIPv6(address) ? 'ipv6' : 'ipv4')
}

/** Null when the URL may receive webhooks, else the reason it may not. */
export async function targetProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'The URL is not valid'
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'The URL must use http or https'
  if (parsed.username || parsed.password) return 'The URL must not carry credentials'
  if (allowPrivate) return null
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  try {
    addresses = net.isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  } catch {
    return `The host "${host}" could not be resolved`
  }
  const bad = addresses.find(isPrivateAddress)
  return bad ? `The host "${host}" is a loopback or private address (${bad}); set WEBHOOKS_ALLOW_PRIVATE=true to allow it` : null
}
